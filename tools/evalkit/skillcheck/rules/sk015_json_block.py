"""Fenced `json` blocks parse as strict JSON (no comments, no trailing commas).

## What it does
Parses each fenced `json` block with a strict JSON parser. A block that parses once `//`
comments and `...` elisions are removed, once wrapped in braces (a `"key": {...}`
fragment), or line by line (JSON Lines) is a sketch.

## Why is this bad
JSON shown in the docs is copied into files that strict parsers read; a comment or a
trailing comma makes the file unreadable.

Severity: error when the block does not parse even as a sketch, since a copy of it fails
in every strict parser; warning for a sketch, which is readable but not pasteable.

## Example
```json
{"fields": ["name", "date",], "output": "filled.pdf"}
```

## Use instead
```json
{"fields": ["name", "date"], "output": "filled.pdf"}
```
or mark an annotated block as `jsonc` or `text`.
"""

import json
import re
from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding, last_offset, without_elisions
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

JSON_LANGUAGES = {"json"}
# Documentation annotates JSON with `//`: removing only those marks keeps a real error.
_JSON_COMMENT = re.compile(r"(?:(?<=[\s,\[{])|^)//[^\n]*", re.M)


def _json_sketch_parses(text: str) -> str | None:
    """What makes a JSON block a sketch ("comments", "elisions", "a fragment") when it
    parses once that is removed, else None."""
    marks = []
    cleaned = _JSON_COMMENT.sub("", text)
    if cleaned != text:
        marks.append("comments")
    elided = without_elisions(cleaned)
    if elided != cleaned:
        marks.append("elisions")
    elided = re.sub(r",(\s*[\]}])", r"\1", elided)  # the comma before a removed item
    for candidate, extra in ((elided, None), ("{" + elided + "}", "a fragment")):
        try:
            json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
        marks += [extra] if extra else []
        return " and ".join(marks) if marks else None
    lines = [line for line in elided.splitlines() if line.strip()]
    try:
        for line in lines:
            json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None
    return " and ".join([*marks, "one value per line (JSON Lines)"]) if len(lines) > 1 else None


@rule("SK015", "json-block", "error|warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in JSON_LANGUAGES:
                continue
            try:
                json.loads(fence.body)
            except RecursionError:
                yield finding(
                    "SK015",
                    "error",
                    "json block nested too deeply to parse",
                    doc.rel,
                    fence.body_line,
                    "fix the JSON",
                )
            except json.JSONDecodeError as err:
                sketch = _json_sketch_parses(fence.body)
                yield finding(
                    "SK015",
                    "warning" if sketch else "error",
                    f"json block does not parse as written: it has {sketch}"
                    if sketch
                    else f"json block does not parse: {err.msg}",
                    doc.rel,
                    fence.body_line + last_offset(fence.body, err.lineno - 1),
                    "fix the JSON, or mark the block `jsonc` if it carries comments",
                )
