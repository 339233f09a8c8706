"""`config.json` has `auto_map` but the command lacks `--trust-remote-code`.

## What it does
With `--checkpoint DIR`, checks for `auto_map` (custom modelling code shipped with the
checkpoint).

## Why is this bad
vLLM (and the tokenizer) refuse to load custom code without the flag; the server exits
at startup.

Severity: error. The server exits at startup on every cluster.

## Example
```yaml
command: vllm serve /checkpoint --tensor-parallel-size 8
```

## Use instead
`vllm serve /checkpoint --trust-remote-code ...`
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL606", "trust-remote-code", "error", scope="checkpoint")
def check(ctx):
    if not ctx.deploys or not ctx.checkpoint.needs_trust_remote_code:
        return
    if not ctx.cfg.flags.has("trust_remote_code"):
        yield Hit(
            ("deployment", "command"),
            "the checkpoint ships custom code (auto_map) but --trust-remote-code is missing",
            fix="add --trust-remote-code",
        )
