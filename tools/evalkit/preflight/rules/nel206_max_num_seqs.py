"""`--max-num-seqs` above `ceil(parallelism / (num_instances x DP))`.

## What it does
Takes the largest concrete `parallelism` (top level or per task; GDPVal's agent
concurrency in its place) and computes the per-replica ceiling with the same formula
as `evalkit size`.

## Why is this bad
`parallelism` is the client's total across all instances; each of the
`num_instances x DP` replicas sees at most the ceiling. A larger `--max-num-seqs` only
lets vLLM reserve KV cache for sequences that never arrive, or, when other traffic
comes, preempt and recompute long prefills.

Severity: warning, the run works; the excess only wastes KV cache or invites preemption.

## Example
```yaml
execution: {num_nodes: 4, num_instances: 4}
deployment:
  command: vllm serve /checkpoint --data-parallel-size 2 --max-num-seqs 64
evaluation:
  nemo_evaluator_config: {config: {params: {parallelism: 256}}}
```

## Use instead
`--max-num-seqs 32` (= ceil(256 / (4 x 2))), or omit it while `parallelism` is `???`.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.sizing import max_num_seqs


@rule("NEL206", "max-num-seqs-above-ceiling", "warning")
def check(ctx):
    cfg = ctx.cfg
    seqs = cfg.flags.integer("max_num_seqs")
    if seqs is None or not ctx.deploys:
        return
    parallelism, _ = cfg.max_parallelism()
    topo = cfg.topology
    if parallelism is None or parallelism < 1 or not topo.num_instances or topo.num_instances < 1:
        return
    ceiling = max_num_seqs(parallelism, max(topo.dp, 1), topo.num_instances)
    if seqs > ceiling:
        yield Hit(
            ("deployment", "command"),
            f"--max-num-seqs {seqs} is above ceil({parallelism} / "
            f"({topo.num_instances} x DP{topo.dp})) = {ceiling}",
            fix=f"use --max-num-seqs {ceiling} (a ceiling, not a target)",
            token="--max-num-seqs",
        )
