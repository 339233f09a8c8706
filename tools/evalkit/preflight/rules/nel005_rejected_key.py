"""A key that belongs to another schema or was removed: `cluster:`, `execution.env_vars`.

## What it does
Reports keys the schema marks as not allowed, with the reason: the top-level
`cluster:` block of nel-next, `execution.env_vars`, `deployment.multiple_instances`,
`evaluation.overrides`, and `target` nested inside `nemo_evaluator_config.config`.

## Why is this bad
0.2.6 either ignores these (a `cluster.sbatch_comment` never reaches the job script)
or rejects them (`'execution.env_vars' is not supported`; nemo-evaluator's
`EvaluationConfig` forbids a `target` inside `config`, so the evaluation stops as it
starts). Either way the setting you wrote does not take effect.

Severity: error for the keys that stop the launch or the evaluation on every cluster;
warning for the top-level `cluster:` block, which 0.2.6 accepts and ignores (the
launcher's dry-run passes; a lost `sbatch_comment` matters only on clusters that act on
it, such as an idle-GPU reaper), and for `deployment.multiple_instances` outside the
SLURM executor (only the SLURM executor refuses it; the local one ignores it).

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
            path = tuple(issue.path)
            # 0.2.6 accepts and ignores the top-level `cluster:` block, and only the
            # SLURM executor refuses `deployment.multiple_instances`
            inert = path == ("cluster",) or (
                path == ("deployment", "multiple_instances") and ctx.cfg.execution_type != "slurm"
            )
            yield Hit(
                issue.path,
                issue.message,
                fix="move or remove the key as described",
                severity="warning" if inert else None,
            )
