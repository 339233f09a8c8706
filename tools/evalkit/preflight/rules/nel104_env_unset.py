"""An environment variable the launcher reads at submit time is not set.

## What it does
Checks `${oc.env:VAR}` (without a default), `host:VAR` env values and the API key named
by `target.api_endpoint.api_key_name` (0.2.6 adds it to every task's env vars as
`host:NAME` unless a task declares it) against the current environment plus a `.env`
file in the working directory (nel loads it too).

## Why is this bad
Both are read when you run `nel run`, dry-run included; an unset one stops the launch
(`Environment variable 'X' not found`, or `Environment variable 'X' (referenced by
'Y') is not set`). It is a warning because you may launch from another shell.

Severity: warning, whether it fails depends on the shell the launch runs in, not on the
file.

## Example
```yaml
export:
  mlflow:
    tracking_uri: ${oc.env:MLFLOW_TRACKING_URI}
```

## Use instead
Export the variable (or put it in `.env`) before launching, or give a default:
`${oc.env:MLFLOW_TRACKING_URI,http://127.0.0.1:5000}`.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL104", "env-unset", "warning")
def check(ctx):
    for issue in ctx.interpolation_issues:
        if issue.kind == "env":
            yield Hit(
                issue.path,
                issue.message,
                token=issue.token,
                fix="export it or add it to .env before `nel run`",
            )
    seen = set()
    for section, mapping in ctx.cfg.env_maps():
        for name, value in mapping.items():
            if not (isinstance(value, str) and value.startswith("host:")):
                continue
            var = value[5:].strip()
            if var and var not in ctx.env and var not in seen:
                seen.add(var)
                yield Hit(
                    section + (name,),
                    f"host variable {var} is not set here; the launcher stops if it is "
                    "unset at submit time",
                    fix=f"export {var} or add it to .env",
                )
    yield from _api_key(ctx, seen)


def _api_key(ctx, seen: set):
    """nel 0.2.6 `collect_eval_env_vars`: the key's name becomes `host:NAME` for each task
    whose merged env vars (top level, evaluation, the task's own) do not declare it."""
    path = ("target", "api_endpoint", "api_key_name")
    name = ctx.cfg.get(path)
    if not isinstance(name, str) or not name or name in ctx.env or name in seen:
        return
    shared = {}
    for section, mapping in ctx.cfg.env_maps():
        if section[:2] != ("evaluation", "tasks"):
            shared.update(mapping)
    tasks = [task for _, task in ctx.cfg.tasks] or [{}]
    for task in tasks:
        own = task.get("env_vars") if isinstance(task, dict) else None
        if name not in shared and not (isinstance(own, dict) and name in own):
            yield Hit(
                path,
                f"API key variable {name} is not set here; the launcher reads it from the "
                "environment at submit time and stops if it is unset",
                fix=f"export {name} or add it to .env",
            )
            return
