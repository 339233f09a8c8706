"""A `vllm serve` flag with a missing value, a value it does not take, or a value outside
its choices.

## What it does
Reads the `vllm serve` call as NEL311 does and checks each flag's values against the
image's vLLM version: a flag that needs a value followed by nothing or by another flag;
`--flag=value` on a flag that takes none (`--enforce-eager=true`); a value outside the
flag's choices (`--kv-cache-dtype`, `--dtype`, ...) or outside the values the engine
accepts when it starts: the quantization methods the version ships (`--quantization`)
and, from vLLM 0.33 on, where the flag has no choices, its KV-cache dtypes
(`--kv-cache-dtype`). Values left open (`???`, `$VAR`) are skipped.
Against a stand-in version (NEL310) errors are warnings.

## Why is this bad
argparse refuses the command line, or the engine refuses the value while it starts:
either way every server exits before serving a request.

Severity: error; warning when the table is a stand-in for an unknown version.

## Example
```yaml
deployment:
  image: vllm/vllm-openai:v0.26.0
  command: vllm serve /checkpoint --kv-cache-dtype fp8_e4m3fn --max-model-len
```

## Use instead
`--kv-cache-dtype fp8_e4m3 --max-model-len 131072`.
"""

from evalkit.preflight.registry import rule
from evalkit.preflight.rules.nel311_vllm_unknown_flag import problems


@rule("NEL312", "vllm-flag-value", "error")
def check(ctx):
    yield from problems(ctx, {"missing-value": None, "unexpected-value": None, "choice": None})
