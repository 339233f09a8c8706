"""Tau3-Banking served with a context below the model's trained context.

## What it does
With `--checkpoint DIR` or `--context N`, compares `--max-model-len` with the model's
context (the model card's figure when given, else `config.json`'s
`max_position_embeddings`) for a config that runs a Tau3 `banking_knowledge` benchmark.

## Why is this bad
Every agent turn resends the whole transcript, which grows to hundreds of thousands of
tokens on long episodes (the upstream ModelOpt recipe reports a run peaking at 262,086).
An episode that fills a smaller window ends early on an empty turn and scores 0, so
the score drops for a reason that is not the model's.

Severity: warning, whether episodes reach the cap depends on the model and the run;
keep the cap identical for baseline and candidate either way.

## Example
```yaml
command: vllm serve /checkpoint --max-model-len 65536   # model trained at 262144
```

## Use instead
`--max-model-len` equal to the trained context (`--max-model-len 262144` here).
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL413", "tau3-context-below-trained", "warning", scope="context")
def check(ctx):
    context = ctx.model_context
    if ctx.cfg.tau3 is None or not ctx.deploys or context is None or context.tokens is None:
        return
    length = ctx.cfg.flags.integer("max_model_len")
    if length is not None and length < context.tokens:
        yield Hit(
            ("deployment", "command"),
            f"--max-model-len {length} is below the model's context {context.tokens} "
            f"({context.source}): Tau3 episodes that fill it end early and score 0",
            fix=f"use --max-model-len {context.tokens}",
            token="--max-model-len",
        )
