"""A deployment setting that a custom `deployment.command` never uses.

## What it does
When your file writes its own `deployment.command`, checks that each of
`gpu_memory_utilization`, `tensor_parallel_size`, `data_parallel_size`,
`pipeline_parallel_size` and `extra_args` you set is referenced from it
(`${deployment.<key>}`, directly or through `${deployment.base_command}`).

## Why is this bad
Those keys reach the server only through the bundled `base_command`. Replacing
`command` silently drops them: you believe the server runs at 0.95 memory
utilisation or TP8 while it runs at vLLM's defaults.

## Example
```yaml
deployment:
  gpu_memory_utilization: 0.95
  command: vllm serve /checkpoint --tensor-parallel-size 2
```

## Use instead
```yaml
deployment:
  gpu_memory_utilization: 0.95
  command: >-
    vllm serve /checkpoint --tensor-parallel-size 2
    --gpu-memory-utilization ${deployment.gpu_memory_utilization}
```
"""

from evalkit.preflight.registry import Hit, rule

KEYS = ("gpu_memory_utilization", "tensor_parallel_size", "data_parallel_size",
        "pipeline_parallel_size", "extra_args")  # fmt: skip


@rule("NEL301", "dead-deployment-key", "error")
def check(ctx):
    cfg = ctx.cfg
    command = cfg.get(("deployment", "command"))
    if not cfg.written(("deployment", "command")) or not isinstance(command, str):
        return
    if "${deployment.base_command}" in command:
        return
    for key in KEYS:
        path = ("deployment", key)
        if not cfg.written(path) or f"${{deployment.{key}}}" in command:
            continue
        yield Hit(
            path,
            f"deployment.{key} is set but the custom command never uses it",
            fix=f"reference ${{deployment.{key}}} in the command, or delete the key and "
            "put the flag in the command",
        )
