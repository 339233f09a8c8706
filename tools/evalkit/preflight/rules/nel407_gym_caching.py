"""Response caching is on for a gym task (`use_caching` not false).

## What it does
Reads the effective adapter `use_caching` (task level over top level; the adapter's
default is true).

## Why is this bad
A cache hit returns a stored completion from an earlier run (another checkpoint or
variant served under the same name) instead of asking the model, and the score is
silently stale.

Severity: error, cached answers make the score stale.

## Example
```yaml
adapter_config:
  use_caching: true
```

## Use instead
```yaml
adapter_config:
  use_caching: false
```
"""

from evalkit.preflight.registry import Hit, rule

ADAPTER = ("nemo_evaluator_config", "target", "api_endpoint", "adapter_config", "use_caching")


@rule("NEL407", "gym-response-caching", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        task_path = ("evaluation", "tasks", gym.task_index) + ADAPTER
        top_path = ("evaluation",) + ADAPTER
        value, path = ctx.cfg.get(task_path), task_path
        if value is None:
            value, path = ctx.cfg.get(top_path), top_path
        if value is not False:
            shown = "unset (the adapter default is true)" if value is None else repr(value)
            where = (
                path if ctx.cfg.get(path) is not None else ("evaluation", "tasks", gym.task_index)
            )
            yield Hit(
                where,
                f"use_caching is {shown} for a gym task",
                fix="set adapter_config.use_caching: false",
            )
