"""The MRCR 128k variant is not served at the checkpoint's own context length.

## What it does
With `--checkpoint DIR` and `config_n3_128k.yaml`, expects `--max-model-len` equal to
`config.json`'s `max_position_embeddings` with no `VLLM_ALLOW_LONG_MAX_MODEL_LEN`,
as long as that context leaves answer room above the 131,072-token cap (at least
182,496 = 131,072 + 51,424, the golden's margin). A checkpoint configured for less than that
is served at 182,496 with the override instead, so the longest prompts still get answered.

## Why is this bad
The 128k variant is meant to be served as the model ships: stretching the context with
the override changes the serving setup between models that need no stretch, and a
length below it drops prompts near the cap (they come back empty and
score 0, with no error anywhere).

Severity: warning. The run works and scores; the serving setup differs from the one the
variant assumes, which is probably unintended.

## Example
```yaml
env_vars: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1}
command: vllm serve /checkpoint --max-model-len 1100000
```

## Use instead
`--max-model-len <max_position_embeddings>` and no long-length override (or, for a
checkpoint configured for less than 182,496 tokens, `--max-model-len 182496` with
`VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1`).
"""

from evalkit.benchmarks.mrcr.variants import VARIANTS, serving_length
from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel302_long_context_override import long_override_set

VARIANT_128K = VARIANTS["config_n3_128k.yaml"]


@rule("NEL604", "mrcr-128k-context", "warning", scope="checkpoint")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    trained = ctx.checkpoint.max_position_embeddings
    if not ctx.deploys or variant is None or variant.config != VARIANT_128K.config:
        return
    if trained is None:
        return
    wanted = serving_length(VARIANT_128K, trained)  # the same rule as choose_variant
    stretched = wanted > trained
    length = ctx.cfg.flags.integer("max_model_len")
    if length is not None and length != wanted:
        why = (
            f"max_position_embeddings {trained} leaves no answer room above the 131072 cap"
            if stretched
            else f"config.json max_position_embeddings is {trained}"
        )
        yield Hit(
            ("deployment", "command"),
            f"--max-model-len {length} for the 128k variant; {why}",
            token="--max-model-len",
            fix=f"use --max-model-len {wanted}",
        )
    if long_override_set(ctx.cfg) and not stretched:
        yield Hit(
            ("deployment", "env_vars", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
            f"the 128k variant needs no long-length override on a {trained}-token checkpoint",
            fix="remove VLLM_ALLOW_LONG_MAX_MODEL_LEN",
        )
