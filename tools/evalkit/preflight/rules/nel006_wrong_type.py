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
or it silently changes meaning on every cluster.

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


@rule("NEL006", "wrong-type", "error")
def check(ctx):
    for issue in ctx.schema_issues:
        if issue.kind in ("type", "enum", "required"):
            fix = (
                f"use '{issue.suggestion}'"
                if issue.suggestion
                else "use a value of the listed type"
            )
            yield Hit(issue.path, issue.message, fix=fix)
