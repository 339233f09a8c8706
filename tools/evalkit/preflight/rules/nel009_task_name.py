"""A task name nel 0.2.6 cannot resolve: unknown, or shared by several harnesses.

## What it does
Looks up each `evaluation.tasks[].name` that has no `container` in the launcher's own
task catalog (an extract generated from the 0.2.6 package), the way the launcher does
before it renders any script, and lists the qualified names to choose from.

## Why is this bad
The launcher stops before submission: `there are multiple tasks named 'ifeval' in the
mapping, please select one of ['lm-evaluation-harness.ifeval', ...]`, or `Task 'X' not
found`. Severity: error, the launcher refuses the config. A task with an explicit
`container`, or `harness.task` of a known harness, is accepted (it runs unlisted) and is
not reported.

## Example
```yaml
evaluation:
  tasks:
    - name: gpqa_diamond
```

## Use instead
```yaml
evaluation:
  tasks:
    - name: simple_evals.gpqa_diamond
```
"""

from evalkit.config.tasks import refusal
from evalkit.preflight.registry import Hit, rule


@rule("NEL009", "unknown-task-name", "error")
def check(ctx):
    for index, task in ctx.cfg.tasks:
        name = task.get("name")
        if not isinstance(name, str) or not name or "???" in name or "${" in name:
            continue
        container = task.get("container")
        found = refusal(name, container if isinstance(container, str) else None)
        if found is None:
            continue
        if found.choices:
            fix = "use one of: " + ", ".join(found.choices)
        else:
            fix = "use a catalog name (`nel ls tasks`) or give the task a container"
        yield Hit(("evaluation", "tasks", index, "name"), found.message, fix=fix)
