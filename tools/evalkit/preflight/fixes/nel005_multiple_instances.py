"""NEL005 (unsafe): `deployment.multiple_instances` becomes the 0.2.6 topology keys.

The launcher 0.1.x read `multiple_instances: true` as one server per node behind its
HAProxy: it health-checked every node's IP and started the proxy only then
(nemo-evaluator-launcher 0.1.93, executors/slurm/executor.py:778-797); `false` was one
server. 0.2.6 refuses the key whatever its value (executors/slurm/executor.py:645-651)
and says the same thing with `execution.num_instances` (one instance per
`num_nodes // num_instances` nodes). So `true` becomes `num_instances` equal to
`num_nodes` (its number when the config writes one, else the interpolation
`${execution.num_nodes}`) and `false` is dropped. Unsafe: a 0.2.6 user may have
meant one server spanning the nodes (Ray, multi-node TP), which is not what 0.1.x did.
Refuses when `execution.num_instances` is already written, or `execution` is not a block
mapping in the file.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import block_mapping

SOURCE = ("deployment", "multiple_instances")
TARGET = ("execution", "num_instances")


@fixer("NEL005", unsafe=True)
def fix(doc, hit, ctx):
    if tuple(hit.path) != SOURCE or not doc.has(SOURCE):
        return False
    value = doc.value(SOURCE)
    if not isinstance(value, bool):
        return False
    if value and (doc.has(TARGET) or not block_mapping(doc, ("execution",))):
        return False
    doc.delete(SOURCE, with_comments=False)
    if not value:
        return "multiple_instances: false dropped: it was 0.1.x's default (one server)"
    nodes = ctx.cfg.get(("execution", "num_nodes"))  # as written: keep an interpolation
    count = nodes if isinstance(nodes, int) and not isinstance(nodes, bool) else None
    doc.add(("execution",), "num_instances", count or "${execution.num_nodes}")
    doc.claim(TARGET)  # a new key: the instance count the flag meant
    return (
        f"multiple_instances: true -> execution.num_instances: {count or 'num_nodes'}: the "
        "launcher 0.1.x ran one server per node behind HAProxy (0.1.93 "
        "executors/slurm/executor.py:778-797); keep it only if that is what you want"
    )
