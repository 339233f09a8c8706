"""`execution.num_nodes` not divisible by `execution.num_instances`.

## What it does
Checks that every instance gets the same whole number of nodes.

## Why is this bad
The launcher refuses the config (`num_nodes (3) must be divisible by num_instances
(2)`) only at launch; preflight says so before you size everything else around it.

Severity: error, the launcher refuses the config (a quoted number too: it stops with a
TypeError).

## Example
```yaml
execution:
  num_nodes: 3
  num_instances: 2
```

## Use instead
```yaml
execution:
  num_nodes: 4
  num_instances: 2
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL205", "nodes-per-instance", "error")
def check(ctx):
    for key in ("num_nodes", "num_instances"):
        value = ctx.cfg.get(("execution", key))
        if isinstance(value, str) and "${" not in value:
            # the slurm executor computes num_nodes % num_instances on the raw values
            yield Hit(
                ("execution", key),
                f"execution.{key} is the string {value!r}: the launcher stops with a "
                "TypeError when it divides the nodes among instances",
                fix=f"write it as a number: {key}: {value.strip()}",
            )
            return
    topo = ctx.cfg.topology
    if topo.num_nodes and topo.num_instances and topo.num_nodes % topo.num_instances:
        yield Hit(
            ("execution", "num_instances"),
            f"num_nodes ({topo.num_nodes}) is not divisible by num_instances "
            f"({topo.num_instances})",
            fix="make num_nodes a multiple of num_instances",
        )
    elif topo.num_instances is not None and topo.num_instances < 1:
        yield Hit(("execution", "num_instances"), "num_instances must be at least 1")
