"""A value of the wrong type or outside its allowed set.

## What it does
Checks types and enumerations from schemas/nel-0.2.6-config.schema.json: numbers where
numbers are read, booleans for switches, strings for env-var values, `deployment.type`
and `execution.type` among the known ones, a `name` on every task. Values are checked
after OmegaConf resolves their interpolations, as the launcher reads them; one known only
at submit (`${oc.env:...}`) is left alone. `execution.proxy` is checked only with
`num_instances > 1`, the only case where the SLURM executor renders it.

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


def _proxy_unused(ctx, issue) -> bool:
    """The SLURM executor renders the proxy (and its image) only for several instances."""
    if tuple(issue.path[:2]) != ("execution", "proxy"):
        return False
    instances = ctx.cfg.resolved(("execution", "num_instances"))
    return isinstance(instances, int) and instances <= 1


@rule("NEL006", "wrong-type", "error")
def check(ctx):
    for issue in ctx.schema_issues:
        if issue.kind in ("type", "enum", "required"):
            fix = (
                f"use '{issue.suggestion}'"
                if issue.suggestion
                else "use a value of the listed type"
            )
            if _proxy_unused(ctx, issue):
                continue
            severity = "warning" if tuple(issue.path) in WARNING_ONLY else None
            yield Hit(issue.path, issue.message, fix=fix, severity=severity)
