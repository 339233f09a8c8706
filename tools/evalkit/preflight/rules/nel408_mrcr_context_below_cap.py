"""`--max-model-len` below the MRCR variant's prompt cap.

## What it does
Compares `--max-model-len` with the variant's cap (1,048,576 tokens for
`config_n3_1m.yaml`, 131,072 for `config_n3_128k.yaml`); for the 1M variant a missing
flag is reported too.

## Why is this bad
Prompts up to the cap are kept by data preparation; every prompt longer than the
served context gets HTTP 400, is recorded as an empty answer and scores 0, silently
lowering the score.

Severity: error, prompts longer than the served context fail, so the score is wrong.

## Example
```yaml
command: vllm serve /checkpoint --max-model-len 524288
```

## Use instead
`--max-model-len 1100000` for the 1M variant (cap plus answer room).
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL408", "mrcr-context-below-cap", "error")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    if not ctx.deploys or variant is None or variant.cap_tokens is None:
        return
    length = ctx.cfg.flags.integer("max_model_len")
    path = ("deployment", "command")
    if length is None:
        if variant.cap_tokens >= 1_000_000:
            yield Hit(
                path,
                f"--max-model-len is not set for {variant.config} (cap {variant.cap_tokens})",
                fix=f"add --max-model-len {variant.min_max_model_len()}",
            )
    elif length < variant.cap_tokens:
        yield Hit(
            path,
            f"--max-model-len {length} is below the {variant.config} prompt cap "
            f"{variant.cap_tokens}: longer prompts score 0",
            fix=f"use --max-model-len {variant.min_max_model_len()}",
            token="--max-model-len",
        )
