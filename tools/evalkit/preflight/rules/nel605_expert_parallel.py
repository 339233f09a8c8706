"""A MoE checkpoint served without `--enable-expert-parallel` (or a dense one with it).

## What it does
With `--checkpoint DIR`, detects MoE from `num_experts`, `num_local_experts` or
`n_routed_experts` in `config.json`.

## Why is this bad
Without expert parallelism each rank holds a slice of every expert and the all-reduce
traffic dominates; the run takes far longer than the sizing assumed and may exceed its
walltime budget. On a dense model the flag does nothing useful and signals a copied
command that was never checked.

Severity: warning. The job runs and scores the same; it costs GPU-hours, or signals a
command copied without checking.

## Example
```yaml
command: vllm serve /checkpoint --data-parallel-size 8   # 235B-A22B MoE
```

## Use instead
`--enable-expert-parallel` for MoE checkpoints; no flag for dense ones.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL605", "expert-parallel", "warning", scope="checkpoint")
def check(ctx):
    if ctx.cfg.deployment_type not in ("vllm", "sglang"):
        return
    has_flag = ctx.cfg.flags.has("expert_parallel")
    path = ("deployment", "command")
    if ctx.checkpoint.is_moe and not has_flag:
        yield Hit(
            path,
            "MoE checkpoint served without --enable-expert-parallel",
            fix="add --enable-expert-parallel",
        )
    elif not ctx.checkpoint.is_moe and has_flag:
        yield Hit(
            path,
            "dense checkpoint served with --enable-expert-parallel",
            fix="remove --enable-expert-parallel",
        )
