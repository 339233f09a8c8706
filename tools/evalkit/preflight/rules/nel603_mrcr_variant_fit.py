"""The MRCR variant does not fit the checkpoint's trained context.

## What it does
With `--checkpoint DIR`, compares the variant's prompt cap with
`max_position_embeddings`: a cap above it is an error; a smaller variant while a larger
one fits is a warning (take the largest within the trained context).

## Why is this bad
Prompts beyond the trained context measure extrapolation, not the checkpoint's
long-context recall; a smaller variant than the model supports wastes the benchmark's
most discriminating bins.

## Example
`benchmarks/mrcr/config_n3_1m.yaml` for a checkpoint with `max_position_embeddings: 131072`.

## Use instead
`benchmarks/mrcr/config_n3_128k.yaml` for a 128k model; `config_n3_1m.yaml` for a 1M one.
"""

from evalkit.mrcr.variants import VARIANTS
from evalkit.preflight.registry import Hit, rule

UNCAPPED_NEEDS = 1_048_576 * 2  # the plain config keeps prompts beyond 1M tokens


@rule("NEL603", "mrcr-variant-fit", "error", scope="checkpoint")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    trained = ctx.checkpoint.max_position_embeddings
    if variant is None or trained is None:
        return
    path = gym.path("collect_rollout_params")
    cap = variant.cap_tokens or UNCAPPED_NEEDS
    if cap > trained:
        fits = [v for v in VARIANTS.values() if v.cap_tokens and v.cap_tokens <= trained]
        best = max(fits, key=lambda v: v.cap_tokens).config if fits else None
        yield Hit(
            path,
            f"{variant.config} keeps prompts up to {cap} tokens but the checkpoint "
            f"was trained to {trained}",
            token=variant.config,
            fix=f"use benchmarks/mrcr/{best}" if best else "MRCR does not fit this model",
        )
        return
    larger = [v for v in VARIANTS.values() if v.cap_tokens and cap < v.cap_tokens <= trained]
    if larger:
        best = max(larger, key=lambda v: v.cap_tokens)
        yield Hit(
            path,
            f"{best.config} also fits the trained context {trained}",
            severity="warning",
            token=variant.config,
            fix=f"use benchmarks/mrcr/{best.config} (the largest that fits)",
        )
