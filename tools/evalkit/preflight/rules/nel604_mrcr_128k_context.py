"""The MRCR 128k variant is not served at the checkpoint's trained context.

## What it does
With `--checkpoint DIR` and `config_n3_128k.yaml`, expects `--max-model-len` equal to
`max_position_embeddings` and no `VLLM_ALLOW_LONG_MAX_MODEL_LEN`.

## Why is this bad
The 128k variant is meant to be served like the model ships; stretching the context
with the override changes the serving setup between variants and models, and a shorter
one drops prompts near the cap.

## Example
```yaml
env_vars: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1}
command: vllm serve /checkpoint --max-model-len 1100000
```

## Use instead
`--max-model-len <max_position_embeddings>` and no long-length override.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel302_long_context_override import long_override_set


@rule("NEL604", "mrcr-128k-context", "warning", scope="checkpoint")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    trained = ctx.checkpoint.max_position_embeddings
    if not ctx.deploys or variant is None or variant.config != "config_n3_128k.yaml":
        return
    length = ctx.cfg.flags.integer("max_model_len")
    if trained is not None and length is not None and length != trained:
        yield Hit(
            ("deployment", "command"),
            f"--max-model-len {length} differs from the trained context {trained}",
            token="--max-model-len",
            fix=f"use --max-model-len {trained}",
        )
    if long_override_set(ctx.cfg):
        yield Hit(
            ("deployment", "env_vars", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
            "the 128k variant needs no long-length override",
            fix="remove VLLM_ALLOW_LONG_MAX_MODEL_LEN",
        )
