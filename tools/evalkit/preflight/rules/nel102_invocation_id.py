"""`runtime:NEL_INVOCATION_ID` mapped in the top-level `env_vars`.

## What it does
Looks for any `runtime:` mapping of `NEL_INVOCATION_ID` in the top-level `env_vars`.

## Why is this bad
Top-level env vars feed the export group too. With `execution.auto_export`, the
separate export job re-exports `NEL_INVOCATION_ID` in a fresh shell that never
defined it; under `set -u` it dies with `NEL_INVOCATION_ID: unbound variable`, and the
results are never exported.

Severity: error, the auto-export job fails on every cluster with `NEL_INVOCATION_ID:
unbound variable`.

## Example
```yaml
env_vars:
  NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID
```

## Use instead
```yaml
evaluation:
  env_vars:
    NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL102", "invocation-id-top-level", "error")
def check(ctx):
    mapping = ctx.cfg.get(("env_vars",))
    if not isinstance(mapping, dict):
        return
    for name, value in mapping.items():
        if isinstance(value, str) and value.strip() == "runtime:NEL_INVOCATION_ID":
            yield Hit(
                ("env_vars", name),
                "runtime:NEL_INVOCATION_ID in top-level env_vars "
                "breaks the auto-export job (unbound variable)",
                fix="move it to evaluation.env_vars (or deployment.env_vars)",
            )
