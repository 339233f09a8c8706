"""A key nel 0.2.6 never reads (a typo or a key from another schema).

## What it does
Checks every section the launcher or its executors read as a closed set (top level,
execution, deployment, target, evaluation and its tasks, export, the adapter config)
against schemas/nel-0.2.6-config.schema.json, and suggests the closest known key. A key
that an interpolation elsewhere references (`${gdpval.reward_mode}`,
`${deployment.reasoning_parser}`) is a variable the config defines for itself and is
not reported.

## Why is this bad
Only `evaluation` and its tasks are checked by the launcher itself. A typo anywhere
else (`walltim`, `partiton`, `tensor_paralel_size`) is silently ignored, so the job
runs with the default you meant to change.

Severity, per case: an error where the launcher refuses the key (directly under
`evaluation` or a task: "Invalid 'evaluation' config ... Extra inputs are not
permitted", and in `execution.mounts`), where the evaluation container refuses it
(`adapter_config`, checked with `extra="forbid"` at run time), and for a near-miss of
a known key you did not also write (the setting you meant silently keeps its default,
so the run is not the one you configured). A warning for any other key: it is inert
(an unread top-level block, a note), probably unintended but harmless.

## Example
```yaml
execution:
  walltim: "04:00:00"
```

## Use instead
```yaml
execution:
  walltime: "04:00:00"
```
"""

import difflib
import re

from evalkit.preflight.registry import Hit, rule

REF = re.compile(r"\$\{(?:select_not_null:|oc\.select:)?([A-Za-z_][\w.-]*)")


def referenced(ctx) -> set[str]:
    refs = set()
    for _, value in ctx.strings():
        if "${" in value:
            refs.update(m.group(1) for m in REF.finditer(value))
    return refs


def is_referenced(dotted: str, refs: set[str]) -> bool:
    return any(
        r == dotted or r.startswith(dotted + ".") or dotted.startswith(r + ".") for r in refs
    )


def is_typo(key: str, suggestion: str | None) -> bool:
    """A near-miss spelling (`walltim`, `partiton`), not a longer name of its own
    (`data_parallel_size_local`, a variable a custom command may read)."""
    if not suggestion:
        return False
    return difflib.SequenceMatcher(None, key, suggestion).ratio() >= 0.9


def severity(ctx, path: tuple, suggestion: str | None) -> str:
    if path[:1] == ("evaluation",) and (len(path) == 2 or (len(path) == 4 and path[1] == "tasks")):
        return "error"  # the launcher's pydantic model forbids extra keys here
    if path[:2] == ("execution", "mounts") and len(path) == 3:
        return "error"  # the launcher's MountsModel forbids extra keys too
    if "adapter_config" in path:
        return "error"  # the container's adapter model forbids extra keys
    typo = len(path) > 1 and is_typo(str(path[-1]), suggestion)
    if typo and not ctx.cfg.written(path[:-1] + (suggestion,)):
        return "error"  # a typo: the setting the user meant is silently dropped
    return "warning"


@rule("NEL004", "unknown-key", "error")
def check(ctx):
    refs = None
    for issue in ctx.schema_issues:
        if issue.kind != "unknown":
            continue
        if refs is None:
            refs = referenced(ctx)
        if all(isinstance(p, str) for p in issue.path) and is_referenced(
            ".".join(issue.path), refs
        ):
            continue
        hint = f"did you mean '{issue.suggestion}'?" if issue.suggestion else None
        message = issue.message + (f"; did you mean '{issue.suggestion}'?" if hint else "")
        yield Hit(
            issue.path,
            message,
            severity=severity(ctx, tuple(issue.path), issue.suggestion),
            fix=hint and f"rename it to '{issue.suggestion}'" or _where(tuple(issue.path)),
        )


def _where(path: tuple) -> str:
    """A task-level `target`/`config` is read only inside nemo_evaluator_config."""
    if len(path) == 4 and path[:2] == ("evaluation", "tasks") and path[-1] == "target":
        return (
            "0.2.6 reads a task's target only under its nemo_evaluator_config: move it "
            "there to have it applied, or delete it (0.2.3 and 0.2.5 did not read it there "
            "either, so moving it changes what runs: your call)"
        )
    return "remove it or move it to the section that reads it"
