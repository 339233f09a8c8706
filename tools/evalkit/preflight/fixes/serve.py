"""Add one flag to the single `vllm serve` call of `deployment.command` (shared by the
fixers that pass a missing flag to vLLM).

The flag goes right after the line that starts the call (or at the end of a one-line
command). Refused (False, the Doc untouched) when the command has no single `vllm serve`,
when the serve line is inside quotes or chained with `&&`/`;`/`|`, or when a line
insertion would change what the shell reads (a literal block's next line is a new shell
line unless the serve line ends in `\\`; a more-indented folded line keeps its newline).
"""

from __future__ import annotations

import re

COMMAND = ("deployment", "command")
SIMPLE = re.compile(r"\s*vllm serve [^;&|'\"`\\\n]*")


def _one_line(doc, flag: str) -> bool:
    command = doc.value(COMMAND)
    if not SIMPLE.fullmatch(command):
        return False
    doc.replace_in(COMMAND, command.rstrip(), f"{command.rstrip()} {flag}")
    return True


def _block(doc, span, flag: str) -> bool:
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
    lines.insert(serve[0] + 1, indent + flag + (" \\" if continued else ""))
    doc.replace_text("\n".join(lines))
    return True


def add_serve_flag(doc, cfg, flag: str) -> bool:
    """Pass `flag` (with its value, if any) to the config's one `vllm serve` call."""
    if not doc.has(COMMAND) or cfg.serve_command.count("vllm serve") != 1:
        return False
    command = doc.value(COMMAND)
    if not isinstance(command, str):
        return False
    doc.claim(COMMAND)  # NEL301's hit names the dead key, the flag goes into the command
    span = doc.doc.spans[COMMAND]
    if span.style in ("|", ">"):
        return _block(doc, span, flag)
    return _one_line(doc, flag)
