"""GPUs per instance (gres x nodes per instance) differ from TP x PP x DP.

## What it does
Reads the GPU count from `execution.gres` (slurm/default: `gpu:8`) and the parallel
sizes from `deployment.command` (`--tensor-parallel-size`, `-tp`, `--data-parallel-size`,
`--pipeline-parallel-size`, SGLang/TRT-LLM spellings), and compares them per instance
(`num_nodes / num_instances` nodes each).

## Why is this bad
More GPUs than the server uses leave them idle for the whole reservation; fewer than it
needs and the server cannot start. On 4-GPU nodes the inherited `gpu:8` makes sbatch
fail with "Requested node configuration is not available".

Interpolations in the command (`--data-parallel-size ${deployment.data_parallel_size}`)
are resolved first, as the launcher resolves them before rendering the script.

Severity, per case: an error when the instance has fewer GPUs than TP x PP x DP (the
server cannot start on any cluster); a warning when it has more (the job runs but
leaves GPUs idle for the whole reservation, which the launcher's own examples do).

## Example
```yaml
execution:
  num_nodes: 1
  gres: gpu:8
deployment:
  command: vllm serve /checkpoint --tensor-parallel-size 2 --data-parallel-size 2
```

## Use instead
Make `gres` the node's GPU count and `TP x PP x DP` use them all (here `gpu:4`, or
`--data-parallel-size 4` on 8-GPU nodes).
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL204", "gres-vs-parallelism", "error")
def check(ctx):
    cfg = ctx.cfg
    if cfg.execution_type != "slurm" or cfg.deployment_type not in ("vllm", "sglang", "trtllm"):
        return
    topo = cfg.topology
    nodes = topo.nodes_per_instance
    if topo.gpus_per_node is None or nodes is None:
        return
    have = topo.gpus_per_node * nodes
    need = topo.gpus_per_replica_set
    if have == need:
        return
    layout = f"TP{topo.tp} x PP{topo.pp} x DP{topo.dp} = {need} GPU(s)"
    where = f"{nodes} node(s) x {topo.gpus_per_node} GPU(s) = {have} per instance"
    idle = need < have
    problem = "idle GPUs" if idle else "the server cannot start"
    yield Hit(
        ("execution", "gres"),
        f"{layout} but {where}: {problem}",
        severity="warning" if idle else "error",
        fix="set gres to the node's GPU count and size TP/PP/DP to use all of them",
    )
