"""A key that belongs to another schema or was removed: `cluster:`, `execution.env_vars`.

## What it does
Reports keys the schema marks as not allowed, with the reason: the top-level
`cluster:` block of nel-next, `execution.env_vars`, `deployment.multiple_instances`,
`evaluation.overrides`, and `target` nested inside `nemo_evaluator_config.config`.

## Why is this bad
0.2.6 either ignores these (a `cluster.sbatch_comment` never reaches the job script)
or rejects them at launch (`'execution.env_vars' is not supported`). Either way the
setting you wrote does not take effect.

Severity: error, the launcher refuses `execution.env_vars`, and the other keys never
take effect, so the run is not the one configured.

## Example
```yaml
cluster:
  sbatch_comment: benchmarking
```

## Use instead
```yaml
execution:
  sbatch_comment: benchmarking
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL005", "rejected-key", "error")
def check(ctx):
    for issue in ctx.schema_issues:
        if issue.kind == "rejected":
            yield Hit(issue.path, issue.message, fix="move or remove the key as described")
