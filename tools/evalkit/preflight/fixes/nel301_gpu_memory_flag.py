"""NEL301: a `gpu_memory_utilization` the custom command never reads is passed to vLLM.

Adds `--gpu-memory-utilization ${deployment.gpu_memory_utilization}` to the single
`vllm serve` call of `deployment.command`, right after the line that starts it (or at
the end of a one-line command), so the server runs with the value the config states.
Refuses when the command already passes the flag with another value (which one you
meant is not certain), when it has more than one `vllm serve`, when the serve line is
inside quotes or chained with `&&`/`;` in a way a line insertion could break, and for
the other dead keys (tensor/pipeline/data parallel sizes, extra_args): those change the
topology, so they are yours to reconcile.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.serve import add_serve_flag

KEY = "gpu_memory_utilization"
FLAG = "--gpu-memory-utilization ${deployment.gpu_memory_utilization}"


@fixer("NEL301")
def fix(doc, hit, ctx):
    if tuple(hit.path) != ("deployment", KEY) or ctx.cfg.flags.has(KEY):
        return False
    return add_serve_flag(doc, ctx.cfg, FLAG)
