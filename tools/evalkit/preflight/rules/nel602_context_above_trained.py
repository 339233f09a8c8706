"""`--max-model-len` above the checkpoint's `max_position_embeddings` without the override.

## What it does
With `--checkpoint DIR`, compares `--max-model-len` with `max_position_embeddings` from
`config.json` (`text_config` for multimodal models) and looks for
`VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1`.

## Why is this bad
vLLM refuses to start with a context longer than the model declares unless that
variable is set, so the job dies after its queue wait.

Severity: error. The server exits at startup on every cluster.

## Example
```yaml
command: vllm serve /checkpoint --max-model-len 262144   # model declares 131072
```

## Use instead
Serve at most the declared length, or set the override deliberately (as the 1M MRCR
envelope does) in `deployment.env_vars`.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel302_long_context_override import long_override_set


@rule("NEL602", "context-above-trained", "error", scope="checkpoint")
def check(ctx):
    trained = ctx.checkpoint.max_position_embeddings
    length = ctx.cfg.flags.integer("max_model_len")
    if not ctx.deploys or trained is None or length is None or length <= trained:
        return
    if not long_override_set(ctx.cfg):
        yield Hit(
            ("deployment", "command"),
            f"--max-model-len {length} exceeds the checkpoint's max_position_embeddings {trained}",
            fix="add deployment.env_vars.VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1 or lower it",
            token="--max-model-len",
        )
