"""`execution.walltime` that YAML reads as an integer, or is not HH:MM:SS.

## What it does
Checks the value as the launcher receives it: after YAML parsing and after OmegaConf
resolves its interpolations (`walltime: ${run.time}` is checked as what `run.time`
holds). A value known only at submit (`${oc.env:...}`, a resolver nel does not have) is
left alone.

## Why is this bad
YAML 1.1 reads an unquoted `10:00:00` as the base-60 integer 36000 (`02:00:00` stays a
string only because of the leading zero). With a deployment the launcher rejects it
(`Invalid walltime format: '36000'`); without one it writes `#SBATCH --time 36000`,
which Slurm reads as 36000 minutes.

Severity: error, the launcher refuses it with a deployment, and without one Slurm reads
the integer as minutes on every cluster.

## Example
```yaml
execution:
  walltime: 10:00:00
```

## Use instead
```yaml
execution:
  walltime: "10:00:00"
```
"""

from evalkit.config.interpolation import UNRESOLVED
from evalkit.preflight.helpers import walltime_seconds
from evalkit.preflight.registry import Hit, rule


@rule("NEL202", "walltime-format", "error")
def check(ctx):
    if ctx.cfg.execution_type != "slurm":
        return
    for key in ("walltime", "max_walltime"):
        path = ("execution", key)
        value = ctx.cfg.resolved(path)
        if (value is None and key == "max_walltime") or value is UNRESOLVED:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            h, rest = divmod(value, 3600)
            guess = f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
            yield Hit(
                path,
                f"{key} is the integer {value}: YAML read an unquoted H:MM:SS as base-60",
                fix=f'quote it: {key}: "{guess}"',
            )
        elif value != "???" and walltime_seconds(value) is None:
            yield Hit(
                path,
                f"{key} {value!r} is not HH:MM:SS or D-HH:MM:SS",
                fix=f'write it as a quoted string, e.g. {key}: "04:00:00"',
            )
