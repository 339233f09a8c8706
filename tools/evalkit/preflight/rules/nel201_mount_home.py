"""`execution.mounts.mount_home` is not `false` (slurm/default sets it to `true`).

## What it does
Reads the effective value, so a config that never mentions it inherits
slurm/default's `mount_home: true` and is reported.

## Why is this bad
The home directory is bind-mounted into every container. Personal caches, pip
configuration and credentials then leak into the run and change its behaviour from
one user to the next; shared clusters often forbid it.

Severity: warning. The launcher accepts it and its own SLURM examples inherit it; the
job runs, but its behaviour depends on who launches it and some clusters refuse it.

## Example
```yaml
defaults:
  - execution: slurm/default
execution:
  mounts:
    deployment: {}
```

## Use instead
```yaml
execution:
  mounts:
    mount_home: false
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL201", "mount-home", "warning")
def check(ctx):
    if ctx.cfg.execution_type != "slurm":
        return
    path = ("execution", "mounts", "mount_home")
    value = ctx.cfg.get(path)
    if value is not False:
        inherited = "" if ctx.cfg.written(path) else " (inherited from slurm/default)"
        yield Hit(
            path,
            f"mount_home is {value!r}{inherited}; home would be mounted into every container",
            fix="set execution.mounts.mount_home: false",
        )
