"""`description` is present: a non-empty string of at most 1024 characters.

## What it does
Checks that the frontmatter has a `description` that is a string, not blank, and at
most 1024 characters long (the spec's limit).

## Why is this bad
The description is all an agent sees before it loads the skill: without one the skill
is never matched to a request, and the spec's validator rejects a longer one.

Severity: error, the spec's validator refuses the skill.

## Example
```markdown
---
name: pdf-tools
description: ""
---
```

## Use instead
```markdown
---
name: pdf-tools
description: >-
  Fill and merge PDF forms. Use when asked to fill a PDF form or merge PDFs.
---
```
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding, frontmatter_value
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

DESCRIPTION_MAX = 1024


@rule("SK004", "description-format", "error")
def check(tree: SkillTree) -> Iterator[Finding]:
    if tree.frontmatter.data is None:
        return
    text, line = frontmatter_value(tree, "description")
    fix = "write what the skill does and when to use it, at most 1024 characters"
    if "description" not in tree.frontmatter.data:
        message = "frontmatter has no 'description'"
    elif not isinstance(text, str) or not text.strip():
        message = "'description' must be a non-empty string"
    elif len(text) > DESCRIPTION_MAX:
        message = f"'description' has {len(text)} characters, more than {DESCRIPTION_MAX}"
    else:
        return
    yield finding("SK004", "error", message, SKILL_MD, line, fix, "description")
