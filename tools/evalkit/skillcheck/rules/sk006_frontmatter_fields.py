"""Only the spec's fields appear, with the spec's types.

## What it does
Allows `name`, `description`, `license`, `compatibility` (a string of at most 500
characters), `metadata` (a mapping of string to string) and `allowed-tools` (a
space-separated string). An unknown field or a bad `compatibility` is an error; a
`metadata` value that is not a string, or an `allowed-tools` list, is a warning.

## Why is this bad
The spec's validator rejects other fields and agents ignore them, so whatever they were
meant to say is lost.

Severity: error for what the reference validator rejects (unknown fields, a bad
`compatibility`); warning for `metadata` values and `allowed-tools` lists, which the
validator reads as strings anyway.

## Example
```markdown
---
name: pdf-tools
description: Fill PDF forms. Use when asked to fill a PDF form.
version: 1.0
---
```

## Use instead
```markdown
---
name: pdf-tools
description: Fill PDF forms. Use when asked to fill a PDF form.
metadata:
  version: "1.0"
---
```
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

COMPATIBILITY_MAX = 500
ALLOWED_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")


@rule("SK006", "frontmatter-fields", "error|warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    data = tree.frontmatter.data
    if data is None:
        return
    lines = tree.frontmatter.key_lines
    for key in data:
        if key not in ALLOWED_FIELDS:
            yield finding(
                "SK006",
                "error",
                f"unknown frontmatter field {key!r}",
                SKILL_MD,
                lines.get(str(key), 1),
                f"allowed fields: {', '.join(ALLOWED_FIELDS)}; put extras under 'metadata:'",
                str(key),
            )
    if "compatibility" in data:
        value = data["compatibility"]
        if not isinstance(value, str) or len(value) > COMPATIBILITY_MAX:
            yield finding(
                "SK006",
                "error",
                f"'compatibility' must be a string of at most {COMPATIBILITY_MAX} characters",
                SKILL_MD,
                lines.get("compatibility", 1),
                "shorten it to the environment requirements that matter",
                "compatibility",
            )
    if "metadata" in data:
        value = data["metadata"]
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            yield finding(
                "SK006",
                "warning",
                "'metadata' must map strings to strings",
                SKILL_MD,
                lines.get("metadata", 1),
                'quote values, e.g. version: "1.0"',
                "metadata",
            )
    if "allowed-tools" in data and not isinstance(data["allowed-tools"], str):
        yield finding(
            "SK006",
            "warning",
            "'allowed-tools' must be a space-separated string",
            SKILL_MD,
            lines.get("allowed-tools", 1),
            "e.g. allowed-tools: Bash(scripts/evalkit:*) Read",
            "allowed-tools",
        )
