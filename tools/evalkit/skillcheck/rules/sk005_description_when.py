"""`description` says when to use the skill (house convention, `require-when`).

## What it does
Off by default. On with `require-when = true` in the check-skill table: the description
must contain the word "when" (any case, anywhere). The test is deliberately that simple.

## Why is this bad
Agents match the user's request against the description; a "Use when ..." sentence
carries the phrases that should trigger the skill. A description that only says what
the skill does is picked less reliably.

Severity: warning, it is a house convention, not a spec requirement; a repository that
relies on it raises it with `severity = { SK005 = "error" }`.

## Example
```markdown
---
name: pdf-tools
description: Fills and merges PDF forms.
---
```

## Use instead
```markdown
---
name: pdf-tools
description: >-
  Fills and merges PDF forms. Use when asked to "fill a PDF form" or "merge PDFs".
---
```
"""

import re
from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding, frontmatter_value
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

_WHEN = re.compile(r"\bwhen\b", re.IGNORECASE)


@rule("SK005", "description-when", "warning", ("require-when",), lambda s: s.require_when)
def check(tree: SkillTree) -> Iterator[Finding]:
    text, line = frontmatter_value(tree, "description")
    if isinstance(text, str) and text.strip() and not _WHEN.search(text):
        yield finding(
            "SK005",
            "warning",
            "'description' does not say when to use the skill (no 'when')",
            SKILL_MD,
            line,
            "add a 'Use when ...' sentence with the requests that should trigger the skill",
            "description",
        )
