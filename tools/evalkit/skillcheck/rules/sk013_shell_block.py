"""Fenced `bash`/`sh`/`shell` blocks pass `bash -n` (syntax only, nothing runs).

## What it does
Runs `bash -n` on each fenced `bash`, `sh` or `shell` block with every `<placeholder>`
word filled in. A block that still fails is an error at the line bash names. A block
that parses but has `<placeholder>` words outside quotes and comments gets one warning:
bash reads them as redirections, so it does not run as written.

## Why is this bad
A command with an unbalanced quote or `if` fails on the user's machine, often after a
long setup; `--input <form.pdf> --yes` redirects from a file named `form.pdf` instead of
passing an argument.

Severity: error for a syntax error, which fails wherever the block is run; warning for
unquoted placeholders, which are meant to be replaced before running.

## Example
```bash
fill-form --input <form.pdf> --output "filled.pdf
```

## Use instead
```bash
fill-form --input "$FORM" --output "filled.pdf"
```
or mark a template or a transcript as `console`.
"""

import re
import subprocess
from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import PLACEHOLDER, finding, last_offset
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

SHELL_LANGUAGES = {"bash", "sh", "shell"}
_BASH_LINE = re.compile(r"line (\d+): (.*)")


def _bash_n(text: str) -> tuple[int, str] | None:
    """(0-based line offset, message) of bash's first syntax error, or None when it parses."""
    proc = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return None
    first = next((ln for ln in proc.stderr.splitlines() if ln.strip()), "syntax error")
    match = _BASH_LINE.search(first)
    offset = last_offset(text, int(match.group(1)) - 1 if match else 0)
    return offset, match.group(2) if match else first


def _unquoted_placeholders(text: str) -> list[tuple[str, int]]:
    """`<name>` words outside quotes and comments, with their 0-based line offset; bash
    reads those as redirections. (Here-document bodies are not told apart.)"""
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(text.splitlines()):
        quote, i = "", 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == quote:
                    quote = ""
                elif ch == "\\" and quote == '"':
                    i += 1
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                i += 1
            elif ch == "#" and (i == 0 or line[i - 1].isspace()):
                break
            elif ch == "<":
                match = PLACEHOLDER.match(line, i)
                if match and (i == 0 or line[i - 1] != "<"):
                    found.append((match.group(1), offset))
                    i = match.end()
                    continue
            i += 1
    return found


@rule("SK013", "shell-block", "error|warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in SHELL_LANGUAGES:
                continue
            placeholders = _unquoted_placeholders(fence.body)
            filled = PLACEHOLDER.sub(
                lambda m: "PLACEHOLDER_" + re.sub(r"\W", "_", m.group(1)), fence.body
            )
            problem = _bash_n(filled)
            if problem is not None:
                yield finding(
                    "SK013",
                    "error",
                    f"shell block fails bash -n: {problem[1]}",
                    doc.rel,
                    fence.body_line + problem[0],
                    "fix the shell syntax, or mark the block `console`/`text`",
                )
            elif placeholders:
                names = list(dict.fromkeys(f"<{name}>" for name, _ in placeholders))
                listed = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
                yield finding(
                    "SK013",
                    "warning",
                    f"shell block does not run as written: bash reads {listed} as redirection",
                    doc.rel,
                    fence.body_line + placeholders[0][1],
                    "write placeholders as $VAR (e.g. $MODEL) or mark the block `console`",
                )
