"""Fenced `python`/`py` blocks compile.

## What it does
Compiles each fenced `python`, `py` or `python3` block (top-level `await` allowed, as in
asyncio REPLs and notebooks); nothing runs. A block that compiles once `...` elisions
(`f(a, ...)`, a `...` line) and `<placeholder>` words are taken out is a sketch.

## Why is this bad
Snippets are run as written; a syntax error costs a round trip and a confused agent.

Severity: error when the block does not compile, since it fails wherever it runs;
warning for a sketch, which is readable but not runnable as written.

## Example
```python
from pypdf import PdfReader
reader = PdfReader("form.pdf"
print(reader.get_fields())
```

## Use instead
```python
from pypdf import PdfReader
reader = PdfReader("form.pdf")
print(reader.get_fields())
```
"""

import ast
from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import PLACEHOLDER, finding, last_offset, without_elisions
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

PYTHON_LANGUAGES = {"python", "py", "python3"}
# Top-level `await` is how asyncio REPLs and notebooks run async examples.
_PY_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


def _compiles(text: str) -> bool:
    try:
        compile(text, "<block>", "exec", flags=_PY_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


@rule("SK014", "python-block", "error|warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in PYTHON_LANGUAGES:
                continue
            try:
                compile(fence.body, str(doc.rel), "exec", flags=_PY_FLAGS, dont_inherit=True)
            except SyntaxError as err:
                sketch = PLACEHOLDER.sub(lambda m: m.group(1).replace(".", "_"), fence.body)
                sketch_ok = _compiles(without_elisions(sketch))
                yield finding(
                    "SK014",
                    "warning" if sketch_ok else "error",
                    "python block does not compile as written: it elides with `...` or "
                    "`<placeholder>`"
                    if sketch_ok
                    else f"python block does not compile: {err.msg}",
                    doc.rel,
                    fence.body_line + last_offset(fence.body, (err.lineno or 1) - 1),
                    "fix the Python syntax, or mark the block `text`",
                )
