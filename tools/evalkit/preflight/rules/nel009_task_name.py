"""A task name nel 0.2.6 cannot resolve: unknown, or shared by several harnesses.

## What it does
Looks up each `evaluation.tasks[].name` that has no `container` in the launcher's own
task catalog (an extract generated from the 0.2.6 package), the way the launcher does
before it renders any script, and lists the qualified names to choose from, with the
endpoint types each serves; for a name older launchers listed and 0.2.6 does not
(`mbpp`, `aa_scicode`), the releases that listed it, the image the last one ran it in
and the 0.2.6 tasks running the same container task (tools/evalkit/data/
nel-task-history.yaml, from the launcher wheels' registries).

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

from evalkit.config.task_history import endpoint_types, gone, span
from evalkit.config.tasks import refusal
from evalkit.preflight.registry import Hit, rule


def _what_to_decide(name: str, found) -> str:
    """The choice left to the user, with what older registries and 0.2.6's say."""
    types = endpoint_types(name)
    if len(found.choices) > 1 and types:
        listed = ", ".join(f"{c} ({'/'.join(types.get(c, [])) or '?'})" for c in found.choices)
        return (
            f"name one of: {listed}; which harness scores it is your choice (with the "
            "task's endpoint_type or a target URL that decides it, --fix --unsafe-fixes "
            "chooses)"
        )
    past = gone(name) if "." not in name and "not found" in found.message else None
    if found.choices and not past:
        return "use one of: " + ", ".join(found.choices)
    if past:
        parts = []
        for harness, seen in sorted(past.items()):
            now = ", ".join(
                f"{q} ({kind})" for kind, qs in sorted(seen["successors"].items()) for q in qs
            )
            parts.append(
                f"releases {span(seen['versions'])} listed it under {harness} (image "
                f"{seen['container']})" + (f"; 0.2.6 runs the same task as {now}" if now else "")
            )
        successors = any(seen["successors"] for seen in past.values())
        first = "name the 0.2.6 task for your endpoint type, or " if successors else ""
        return (
            "; ".join(parts) + f": {first}keep the name and give the task that image as its "
            "container (--fix --unsafe-fixes writes one of these, saying which), or pick "
            "another task (`nel ls tasks`)"
        )
    return "use a catalog name (`nel ls tasks`) or give the task a container"


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
        fix = _what_to_decide(name, found)
        yield Hit(("evaluation", "tasks", index, "name"), found.message, fix=fix)
