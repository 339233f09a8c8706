"""An interpolation in `export` that reaches outside the `export` section.

## What it does
Resolves the `export` section the way the launcher does: on its own, as a config whose
only key is `export`. Every `${...}` there that then fails (`${deployment.*}`,
`${evaluation.*}`, or any top-level key such as `${run.wandb.entity}`) is reported.
References inside the section (`${export.team}`, `${.team}`) and `${oc.env:VAR}` resolve
there and are fine.

## Why is this bad
The launcher copies `export` into a fresh config before resolving it, so a key that
exists elsewhere in the file is not found: the local executor stops at submit with
"Interpolation key 'run.wandb.entity' not found", and the SLURM executor stops the same
way when auto-export has destinations. The export job (or `nel export` later) reads the
same copied section.

Severity: error, the launcher refuses the config, or the export fails on every cluster
after the evaluation has finished.

## Example
```yaml
run:
  wandb:
    entity: eval-team
export:
  wandb:
    entity: ${run.wandb.entity}
```

## Use instead
Literal values, references inside `export`, or `${oc.env:VAR}`:
```yaml
export:
  wandb:
    entity: eval-team
```
"""

from evalkit.config.interpolation import find_issues
from evalkit.preflight.registry import Hit, rule


@rule("NEL502", "export-outside-reference", "error")
def check(ctx):
    export = ctx.cfg.get(("export",))
    if not isinstance(export, dict):
        return
    broken_anyway = {tuple(i.path) for i in ctx.interpolation_issues}  # NEL001's
    # the launcher's own step: OmegaConf.create({"export": cfg.export}), then resolve
    for issue in find_issues({"export": export}, ctx.env):
        if issue.kind != "error" or tuple(issue.path) in broken_anyway:
            continue  # an unset ${oc.env:VAR} is NEL104's, as everywhere else
        yield Hit(
            issue.path,
            f"resolved on its own as the launcher does, `export` fails here: {issue.message}",
            fix="write the literal value, a reference inside export, or ${oc.env:VAR}",
            token=issue.token,
        )
