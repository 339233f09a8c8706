"""`runtime:NEL_INVOCATION_ID` mapped in the top-level `env_vars`.

## What it does
Looks for any `runtime:` mapping of `NEL_INVOCATION_ID` in the top-level `env_vars`, and
whether the launcher renders a separate export job for it to break: only the SLURM
executor with `execution.auto_export` destinations does (nemo-evaluator-launcher 0.2.6,
executors/slurm/executor.py:1077-1092 calls `_generate_auto_export_section`, whose
export.sbatch runs `set -uo pipefail` and the export group's re-exports at lines
1217-1220). The local executor runs its export in the same run.sh that defines the
variable (executors/local/run.template.sh:17 and :154), and the Lepton executor has no
auto-export, so there the mapping is harmless.

## Why is this bad
Top-level env vars feed the export group too. With `execution.auto_export` on SLURM, the
separate export job re-exports `NEL_INVOCATION_ID` in a fresh shell that never
defined it; under `set -u` it dies with `NEL_INVOCATION_ID: unbound variable`, and the
results are never exported.

Severity: error where the export job is rendered (it fails on every cluster with
`NEL_INVOCATION_ID: unbound variable`); info on SLURM without auto-export (it breaks
the day auto-export is turned on); nothing on the local and Lepton executors.

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


def export_destinations(cfg) -> list:
    """`execution.auto_export` destinations as the SLURM executor reads them: a list, or a
    mapping's `destinations` (executors/slurm/executor.py:1077-1082)."""
    value = cfg.get(("execution", "auto_export"))
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("destinations"), list):
        return value["destinations"]
    return []


@rule("NEL102", "invocation-id-top-level", "error")
def check(ctx):
    mapping = ctx.cfg.get(("env_vars",))
    if not isinstance(mapping, dict) or ctx.cfg.execution_type != "slurm":
        return
    exports = bool(export_destinations(ctx.cfg))
    for name, value in mapping.items():
        if isinstance(value, str) and value.strip() == "runtime:NEL_INVOCATION_ID":
            if exports:
                yield Hit(
                    ("env_vars", name),
                    "runtime:NEL_INVOCATION_ID in top-level env_vars breaks the "
                    "auto-export job (its export.sbatch never defines it: unbound variable)",
                    fix="move it to evaluation.env_vars (or deployment.env_vars)",
                )
            else:
                yield Hit(
                    ("env_vars", name),
                    "runtime:NEL_INVOCATION_ID in top-level env_vars: harmless without "
                    "auto-export, but execution.auto_export on SLURM would fail its export "
                    "job (unbound variable)",
                    fix="move it to evaluation.env_vars (or deployment.env_vars)",
                    severity="info",
                )
