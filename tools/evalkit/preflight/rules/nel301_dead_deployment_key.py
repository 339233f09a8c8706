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

Severity, per case: an error when the value differs from what the server actually
uses (the flag in the command, else vLLM's own default: TP/PP/DP 1, memory 0.9), since
the run is not the one the config describes; a warning when it equals it (a dead
`tensor_parallel_size: 1` changes nothing, it only misleads the reader).

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

FLAG = {"tensor_parallel_size": "tp", "pipeline_parallel_size": "pp",
        "data_parallel_size": "dp", "gpu_memory_utilization": "gpu_memory_utilization"}  # fmt: skip
# vLLM's own defaults when the flag is absent (vllm/engine/arg_utils.py, EngineArgs)
VLLM_DEFAULT = {"tp": 1.0, "pp": 1.0, "dp": 1.0, "gpu_memory_utilization": 0.9}


def used_value(cfg, key: str) -> float | str | None:
    """What the server runs with instead of the dead key (None: unknown)."""
    if key == "extra_args":
        return ""
    flag = FLAG[key]
    if cfg.flags.has(flag):
        return cfg.flags.number(flag)
    if cfg.deployment_type in ("vllm", "vllm_ray"):
        return VLLM_DEFAULT[flag]
    return None


def same(value, used) -> bool:
    if used is None:
        return False
    if isinstance(used, str):
        return isinstance(value, str) and value.strip() == used
    try:
        return float(value) == used
    except (TypeError, ValueError):
        return False


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
        used = used_value(cfg, key)
        harmless = same(cfg.get(path), used)
        note = f" (the server uses {used:g} anyway)" if harmless and used != "" else ""
        yield Hit(
            path,
            f"deployment.{key} is set but the custom command never uses it{note}",
            severity="warning" if harmless else "error",
            fix=f"reference ${{deployment.{key}}} in the command, or delete the key and "
            "put the flag in the command",
        )
