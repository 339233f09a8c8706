"""`limit_samples` written into a config: the run scores a subset of the benchmark.

## What it does
Reports `limit_samples` set in the file (under the shared `params` or a task's own), not
`null`. One given on the command line (`-o ...limit_samples=10`) is a deliberate canary
and is not reported.

## Why is this bad
The launcher's own examples mark the key "TEST ONLY". A score over the first N samples
is not comparable with a full run (nor with a published number): a limited run left in
a baseline or candidate config makes the comparison wrong without any error.

Severity: warning, a canary sets it on purpose and preflight cannot tell a canary from a
full run; remove it before the run whose score you quote.

## Example
```yaml
evaluation:
  nemo_evaluator_config:
    config:
      params:
        limit_samples: 10
```

## Use instead
Leave it out of the file and pass it for a canary only:
`nel run --config FILE -o ++evaluation.nemo_evaluator_config.config.params.limit_samples=10`.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL013", "limit-samples", "warning")
def check(ctx):
    cfg = ctx.cfg
    paths = [cfg.params_path] + [cfg.task_params_path(i) for i, _ in cfg.tasks]
    for params in paths:
        path = (*params, "limit_samples")
        value = cfg.get(path)
        if value is None or not cfg.written(path) or path in cfg.overridden:
            continue
        yield Hit(
            path,
            f"limit_samples: {value} scores only part of the benchmark; the score is not "
            "comparable with a full run",
            fix="delete it for the run you quote; for a canary pass it with -o instead",
        )
