"""A config value that reaches a shell unquoted holds a shell metacharacter.

## What it does
Checks the values nel 0.2.6 pastes into the sbatch script or the serving command without
quoting, for a newline, `;`, `&`, `|`, a backtick, `$(`, `<` or `>`:

- `#SBATCH` lines: `execution.account`, `partition`, `cpu_partition`, `walltime`,
  `subproject`;
- `srun` arguments on the batch node: `deployment.checkpoint_path` and `cache_path`
  (`--container-mounts`), every host and container path under `execution.mounts`,
  `deployment.image` and each task's `container` (`--container-image`),
  `execution.output_dir` (`--output`, `TASK_DIR="..."`);
- every value that `deployment.command` or a `pre_cmd` pulls in with `${...}`
  (`served_model_name`, `reasoning_parser`, ...): the launcher writes the resolved
  command to `deployment_cmd.sh` and bash runs it in the container.

The text of `deployment.command` and `pre_cmd` themselves is shell on purpose and is not
checked, nor are values they do not reference.

## Why is this bad
The launcher formats these values into the script as they are. A newline in
`checkpoint_path` ends the `srun` line, and the rest of the value runs as its own
command on the batch node, outside any container; `;` or `|` in a mount does the same
inside the line; `served_model_name: "m; id"` runs `id` before vLLM. `nel run --dry-run`
renders such a script without complaint.

Severity: error, the rendered script runs the value's text as a command (or, on an
`#SBATCH` line, sbatch refuses the account or partition on every cluster).

## Example
```yaml
deployment:
  checkpoint_path: "/lustre/models/m\ntouch /tmp/x"
  served_model_name: "model; id"
```

## Use instead
```yaml
deployment:
  checkpoint_path: /lustre/models/m
  served_model_name: model
```
"""

import re

from evalkit.config.interpolation import lookup, resolve_full
from evalkit.preflight.helpers import COMMAND_KEYS
from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel003_placeholder import ANGLE, is_placeholder

# What makes bash do something other than pass the value on as one argument's text.
METACHAR = re.compile(r"[\n\r;&|`<>]|\$\(")
NAMES = {"\n": "a newline", "\r": "a carriage return", "`": "a backtick", "$(": "'$('"}
SBATCH = ("account", "partition", "cpu_partition", "walltime", "subproject")
SRUN_DEPLOYMENT = ("checkpoint_path", "cache_path", "image")
# `${a.b}` and `${a.b.c}`: a plain reference (resolvers such as ${oc.env:X} are not values).
REFERENCE = re.compile(r"\$\{\s*([A-Za-z_][\w.]*)\s*\}")


def _bad(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    # A `<HOST_PATH>` blank is NEL003's, not a redirection.
    blanked = ANGLE.sub(lambda m: "" if is_placeholder(m.group(1)) else m.group(0), value)
    found = METACHAR.search(blanked)
    if found is None:
        return None
    return NAMES.get(found.group(), repr(found.group()))


def _places(ctx):
    """(path, value, where it lands) for every value the script carries unquoted."""
    cfg = ctx.cfg
    if cfg.execution_type == "slurm":
        for key in SBATCH:
            yield ("execution", key), cfg.get(("execution", key)), "an #SBATCH line"
        yield ("execution", "output_dir"), cfg.get(("execution", "output_dir")), "srun --output"
        mounts = cfg.get(("execution", "mounts"))
        for side in ("deployment", "evaluation"):
            table = mounts.get(side) if isinstance(mounts, dict) else None
            for host, target in table.items() if isinstance(table, dict) else ():
                path = ("execution", "mounts", side, host)
                yield path, host, "srun --container-mounts"
                yield path, target, "srun --container-mounts"
        for i, task in cfg.tasks:
            yield (
                ("evaluation", "tasks", i, "container"),
                task.get("container"),
                "srun --container-image",
            )
    if ctx.deploys:
        for key in SRUN_DEPLOYMENT:
            flag = "--container-image" if key == "image" else "--container-mounts"
            yield ("deployment", key), cfg.get(("deployment", key)), f"srun {flag}"
    yield from _referenced(ctx)


def _referenced(ctx):
    """Values pulled into the serving command or a pre_cmd by `${...}`."""
    seen = set()
    for owner in (("deployment", "command"), ("deployment", "pre_cmd"), ("evaluation", "pre_cmd")):
        text = ctx.cfg.get(owner)
        if not isinstance(text, str):
            continue
        for ref in REFERENCE.findall(text):
            path = tuple(int(p) if p.isdigit() else p for p in ref.split("."))
            if path in seen or path[-1] in COMMAND_KEYS:
                continue
            seen.add(path)
            found, raw = lookup(ctx.cfg.data, ref)
            if not found or not isinstance(raw, str):
                continue
            value = resolve_full(ctx.cfg.data, path, ctx.env)
            yield path, value, f"{'.'.join(owner)} through ${{{ref}}}"


@rule("NEL307", "shell-unquoted-value", "error")
def check(ctx):
    reported = set()
    for path, value, where in _places(ctx):
        what = _bad(value)
        if what is None or path in reported:
            continue
        reported.add(path)
        if where.startswith("an #SBATCH") and what not in ("a newline", "a carriage return"):
            effect = "sbatch takes it as part of the value and refuses the job"
        else:
            effect = "the rendered script runs the text after it as a command"
        yield Hit(
            path,
            f"{ctx.cfg.fmt(path)} holds {what} and reaches {where} unquoted: {effect}",
            fix="remove it: a path, name or image needs no newline, ; & | ` $( < or >",
        )
