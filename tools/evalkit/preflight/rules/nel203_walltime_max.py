"""`execution.walltime` longer than `execution.max_walltime`.

## What it does
Compares the two durations (slurm/default's `max_walltime` is "120:00:00").

## Why is this bad
The launcher chains jobs until the accumulated time reaches `max_walltime`; a single
job longer than it cannot be resumed and the cap stops the run after its first job.

Severity: error, the run stops after its first job on every cluster.

## Example
```yaml
execution:
  walltime: "48:00:00"
  max_walltime: "24:00:00"
```

## Use instead
Set `walltime` to your cluster's per-job limit (often "04:00:00") and `max_walltime`
to the total the run may take across resumes.
"""

from evalkit.preflight.helpers import walltime_seconds
from evalkit.preflight.registry import Hit, rule


@rule("NEL203", "walltime-above-max", "error")
def check(ctx):
    if ctx.cfg.execution_type != "slurm":
        return
    wall = walltime_seconds(ctx.cfg.resolved(("execution", "walltime")))
    cap = walltime_seconds(ctx.cfg.resolved(("execution", "max_walltime")))
    if wall is not None and cap is not None and wall > cap:
        yield Hit(
            ("execution", "walltime"),
            f"walltime exceeds max_walltime ({ctx.cfg.resolved(('execution', 'max_walltime'))})",
            fix="lower walltime to the per-job limit or raise max_walltime",
        )
