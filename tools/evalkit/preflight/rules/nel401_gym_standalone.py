"""A `nemo_gym` task shares its config with other tasks.

## What it does
Counts `evaluation.tasks` when one of them is a `nemo_gym` task.

## Why is this bad
A gym task's bootstrap, adapter settings (caching off, reasoning handling, removed
token limits) and serving envelope are tuned for it alone; the other tasks inherit
them through the shared `nemo_evaluator_config` and run with the wrong settings (or
the gym run inherits theirs).

Severity: error, the other tasks (or the gym task) run with settings tuned for someone
else, so their scores are wrong.

## Example
```yaml
evaluation:
  tasks:
    - name: nemo_gym
    - name: ns_gpqa
```

## Use instead
One config per gym task; the other tasks go in their own config.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL401", "gym-not-standalone", "error")
def check(ctx):
    tasks = ctx.cfg.tasks
    for gym in ctx.cfg.gym_tasks:
        if len(tasks) > 1:
            others = ", ".join(str(t.get("name")) for i, t in tasks if i != gym.task_index)
            yield Hit(
                ("evaluation", "tasks", gym.task_index),
                f"the nemo_gym task must be the only task (also here: {others})",
                fix="move the other tasks to a separate config",
            )
