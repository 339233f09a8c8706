"""`--max-model-len` above 1,048,576 without `VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1`.

## What it does
Reads `--max-model-len` from the serving command and looks for the override in
`deployment.env_vars` (or the top-level `env_vars`). With `--checkpoint`, rule NEL602
does the exact check against the model's `max_position_embeddings`.

## Why is this bad
vLLM refuses a context longer than the checkpoint declares unless that variable is
set; no released checkpoint declares more than 1,048,576 tokens for MRCR-class serving,
and the 1M MRCR envelope serves 1,100,000. The server exits at startup after the job
waited in the queue.

Severity: error, vLLM refuses to start on every cluster without the override.

## Example
```yaml
deployment:
  command: vllm serve /checkpoint --max-model-len 1100000
```

## Use instead
```yaml
deployment:
  env_vars:
    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1
```
"""

from evalkit.preflight.registry import Hit, rule

LIMIT = 1_048_576


def long_override_set(cfg) -> bool:
    value = cfg.env_value("deployment", "VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    return isinstance(value, str) and value.strip().lower() in ("lit:1", "lit:true")


@rule("NEL302", "long-context-override", "error")
def check(ctx):
    length = ctx.cfg.flags.integer("max_model_len")
    if not ctx.deploys or length is None or length <= LIMIT or long_override_set(ctx.cfg):
        return
    yield Hit(
        ("deployment", "command"),
        f"--max-model-len {length} needs VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1",
        fix="add deployment.env_vars.VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1",
        token="--max-model-len",
    )
