"""The MRCR variant does not fit the model's documented context.

## What it does
With `--checkpoint DIR` or `--context N`, compares the variant's prompt cap with the
model's context: the one documented on the model card when `--context N` gives it (no
checkpoint files needed), else `config.json`'s `max_position_embeddings` (a runtime
default that the card may exceed). The rule is to take the largest variant within the
context, so:

- a cap above the documented context is an error;
- a cap above `max_position_embeddings` with no documented context is an error without
  `VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1` (vLLM refuses the length) and a warning with it
  (confirm the length on the model card, then pass `--context`);
- a smaller variant while a larger one fits is a warning;
- a variant chosen from `max_position_embeddings` alone, when a card could allow a larger
  one, is noted (info).

## Why is this bad
Prompts beyond the model's context measure extrapolation, not its long-context recall;
a smaller variant than the model supports scores a different dataset, which cannot be
compared with runs or published numbers on the larger one.

Severity: error when the score would be wrong (a cap beyond the documented context) or
the server cannot start (no override); warning when it is probably unintended (a
smaller variant than fits, or a length only the model card can vouch for); info when
only `max_position_embeddings` was known.

## Example
`benchmarks/mrcr/config_n3_1m.yaml` for a model whose card documents 131072 tokens
(`--context 131072`), or `config_n3_128k.yaml` for a Nemotron 3 Nano checkpoint whose
`config.json` says 262144 and whose card documents 1M (`--context 1048576`).

## Use instead
The largest variant within the documented context: `config_n3_1m.yaml` for a 1M card
(served at `--max-model-len 1100000`, with `VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1` when
that exceeds `max_position_embeddings`), `config_n3_128k.yaml` otherwise.
"""

from evalkit.benchmarks.mrcr.variants import CHOOSABLE, VARIANTS, largest_fitting
from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel302_long_context_override import long_override_set

UNCAPPED_NEEDS = 1_048_576 * 2  # the plain config keeps prompts beyond 1M tokens
LARGEST = max((VARIANTS[name] for name in CHOOSABLE), key=lambda v: v.cap_tokens)


def _use(best) -> str:
    return f"use benchmarks/mrcr/{best.config}" if best else "MRCR does not fit this model"


@rule("NEL603", "mrcr-variant-fit", "error", scope="context")
def check(ctx):
    gym = ctx.cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    context = ctx.model_context
    if variant is None or context is None or context.tokens is None:
        return
    path = gym.path("collect_rollout_params")
    cap = variant.cap_tokens or UNCAPPED_NEEDS
    best = largest_fitting(context.tokens)
    if cap > context.tokens:
        yield from _above_context(ctx, variant, cap, context, best, path)
        return
    if best is not None and best.cap_tokens > cap:
        where = "documented context" if context.documented else "max_position_embeddings"
        yield Hit(
            path,
            f"{best.config} also fits the {where} {context.tokens} ({context.source})",
            severity="warning",
            token=variant.config,
            fix=f"{_use(best)} (the largest that fits)",
        )
    elif not context.documented and best is not None and best is not LARGEST:
        yield Hit(
            path,
            f"{variant.config} chosen by config.json max_position_embeddings "
            f"{context.tokens}; if the model card documents {LARGEST.cap_tokens} tokens or "
            f"more, {LARGEST.config} fits",
            severity="info",
            token=variant.config,
            fix="check the model card's context length and pass it as --context N",
        )


def _above_context(ctx, variant, cap, context, best, path):
    if context.documented:
        yield Hit(
            path,
            f"{variant.config} keeps prompts up to {cap} tokens but the model card "
            f"documents {context.tokens} (--context)",
            token=variant.config,
            fix=_use(best),
        )
    elif ctx.deploys and long_override_set(ctx.cfg):
        yield Hit(
            path,
            f"{variant.config} keeps prompts up to {cap} tokens, above config.json "
            f"max_position_embeddings {context.tokens}: that is the runtime default, not "
            f"always the trained context; confirm that the model card documents at least "
            f"{cap} tokens",
            severity="warning",
            token=variant.config,
            fix=f"pass the card's figure as --context N, or {_use(best)}",
        )
    else:
        yield Hit(
            path,
            f"{variant.config} keeps prompts up to {cap} tokens, above config.json "
            f"max_position_embeddings {context.tokens}, and VLLM_ALLOW_LONG_MAX_MODEL_LEN "
            "is not set: vLLM refuses the length",
            token=variant.config,
            fix=f"{_use(best)}, or, if the model card documents at least {cap} tokens, set "
            "deployment.env_vars.VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1 and pass --context N",
        )
