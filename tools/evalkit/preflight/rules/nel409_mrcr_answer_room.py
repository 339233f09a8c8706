"""`--max-model-len` leaves less answer room than the MRCR reference run.

## What it does
For the 1M variant, warns when `--max-model-len` is at least the variant's cap but
below cap + 51,424 (the reference served the 1M variant at 1,100,000 = 1,048,576 + 51,424).

## Why is this bad
A prompt near the cap then has little room left for reasoning and the answer; those
responses stop at the length limit and score near 0.

Severity: warning, the run works and scores, but long answers may be cut short compared
with the reference run.

## Example
```yaml
command: vllm serve /checkpoint --max-model-len 1048576
```

## Use instead
`--max-model-len 1100000` for the 1M variant.
"""

from evalkit.benchmarks.mrcr.variants import ANSWER_ROOM_TOKENS
from evalkit.preflight.registry import Hit, rule


@rule("NEL409", "mrcr-answer-room", "warning")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    # Only the 1M variant: the 128k one is served at the trained context (NEL604).
    if not ctx.deploys or variant is None or (variant.cap_tokens or 0) < 1_000_000:
        return
    length = ctx.cfg.flags.integer("max_model_len")
    if length is None or length < variant.cap_tokens:
        return
    if length < variant.cap_tokens + ANSWER_ROOM_TOKENS:
        yield Hit(
            ("deployment", "command"),
            f"--max-model-len {length} leaves {length - variant.cap_tokens} tokens above "
            f"the cap; the reference left {ANSWER_ROOM_TOKENS}",
            fix=f"use --max-model-len {variant.min_max_model_len()}",
            token="--max-model-len",
        )
