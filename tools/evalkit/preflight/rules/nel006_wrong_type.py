"""A value of the wrong type or outside its allowed set.

## What it does
Checks types and enumerations from schemas/nel-0.2.6-config.schema.json: numbers where
numbers are read, booleans for switches, strings for env-var values, `deployment.type`
and `execution.type` among the known ones, a `name` on every task.

## Why is this bad
Some are rejected late by the launcher (`env_vars` values must be strings), others by
the evaluation container after the job has waited in the queue (adapter settings), and
some silently change meaning (`mount_home: "false"` is a non-empty string).

Severity: error, the launcher (pydantic) or the evaluation container refuses the value,
or it silently changes meaning on every cluster. A warning for `mount_home` written as a
string: the launcher accepts it and mounts home (NEL201's concern, a warning).

## Example
```yaml
evaluation:
  env_vars:
    MAX_TURNS: 250
```

## Use instead
```yaml
evaluation:
  env_vars:
    MAX_TURNS: lit:250
```
"""

from evalkit.preflight.registry import Hit, rule

# Wrong types the launcher accepts and whose effect is only warning-level: its pydantic
# model coerces "no"/"false" for mount_home, but the executor then tests the raw string,
# which is true, so home is mounted (what NEL201 warns about).
WARNING_ONLY = {("execution", "mounts", "mount_home")}


@rule("NEL006", "wrong-type", "error")
def check(ctx):
    for issue in ctx.schema_issues:
        if issue.kind in ("type", "enum", "required"):
            fix = (
                f"use '{issue.suggestion}'"
                if issue.suggestion
                else "use a value of the listed type"
            )
            severity = "warning" if tuple(issue.path) in WARNING_ONLY else None
            yield Hit(issue.path, issue.message, fix=fix, severity=severity)
