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

import re

from evalkit.preflight.fixes import fixer

KEY = "gpu_memory_utilization"
FLAG = "--gpu-memory-utilization ${deployment.gpu_memory_utilization}"
COMMAND = ("deployment", "command")
SIMPLE = re.compile(r"\s*vllm serve [^;&|'\"`\\\n]*")


def _one_line(doc) -> bool:
    command = doc.value(COMMAND)
    if not SIMPLE.fullmatch(command):
        return False
    doc.replace_in(COMMAND, command.rstrip(), f"{command.rstrip()} {FLAG}")
    return True


def _block(doc, span) -> bool:
    first, last = doc.block_lines(COMMAND)
    lines = doc.lines
    serve = [i for i in range(first, last + 1) if "vllm serve" in lines[i]]
    if len(serve) != 1:
        return False
    line = lines[serve[0]]
    after = line.split("vllm serve", 1)[1]
    if any(mark in after for mark in ("'", '"', "`", "&&", ";", "|")):
        return False
    base = len(lines[first]) - len(lines[first].lstrip())
    continued = line.rstrip().endswith("\\")
    if span.style == "|" and not continued and serve[0] != last:
        return False  # a literal block's next line is a new shell line
    if span.style == ">" and len(line) - len(line.lstrip()) != base:
        return False  # a more-indented folded line keeps its newline
    indent = " " * (len(line) - len(line.lstrip()))
    if span.style == "|" and not continued:
        lines[serve[0]] = f"{line.rstrip()} \\"
    lines.insert(serve[0] + 1, indent + FLAG + (" \\" if continued else ""))
    doc.replace_text("\n".join(lines))
    return True


@fixer("NEL301")
def fix(doc, hit, ctx):
    if tuple(hit.path) != ("deployment", KEY) or not doc.has(COMMAND):
        return False
    if ctx.cfg.flags.has(KEY) or ctx.cfg.serve_command.count("vllm serve") != 1:
        return False
    command = doc.value(COMMAND)
    if not isinstance(command, str):
        return False
    span = doc.doc.spans[COMMAND]
    if span.style in ("|", ">"):
        return _block(doc, span)
    return _one_line(doc)
