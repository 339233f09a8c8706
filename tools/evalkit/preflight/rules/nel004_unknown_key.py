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
            fix=hint
            and f"rename it to '{issue.suggestion}'"
            or "remove it or move it to the section that reads it",
        )
