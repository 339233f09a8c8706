"""A `vllm serve` flag given twice with different values.

## What it does
Reads the `vllm serve` call as NEL311 does and reports a flag (under any of its
spellings: `-tp` and `--tensor-parallel-size`, `--x` and `--no-x`) that appears twice
with different values. Flags meant to repeat (`--middleware`) and `--json-flag.key`
parts are left alone.

## Why is this bad
vLLM keeps the last value without an error. The command then runs a setting the reader
of the config does not see first, typically when `extra_args` or a `${deployment.*}`
piece repeats a flag the command already sets.

Severity: warning. The server starts; the setting that wins is probably not the one
intended.

## Example
```yaml
deployment:
  command: vllm serve /checkpoint --max-num-seqs 32 --enable-chunked-prefill --max-num-seqs 64
```

## Use instead
Keep one `--max-num-seqs`.
"""

from evalkit.preflight.registry import rule
from evalkit.preflight.rules.nel311_vllm_unknown_flag import problems


@rule("NEL314", "vllm-repeated-flag", "warning")
def check(ctx):
    yield from problems(ctx, {"repeated": None})
