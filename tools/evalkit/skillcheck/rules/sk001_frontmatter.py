"""SKILL.md starts with a YAML frontmatter mapping between two `---` lines.

## What it does
Reads the block between SKILL.md's first line `---` and the next `---` line as YAML.
Reports a missing opening or closing line, YAML that does not parse (at the line the
parser names), and a block that is not a mapping.

## Why is this bad
Agents read only the frontmatter to decide whether to load the skill; without it the
skill is never picked. An unquoted `: ` inside a value is the usual cause.

Severity: error, no agent and not the spec's validator can read a skill without it.

## Example
```markdown
---
name: pdf-tools
description: Fill PDF forms: text fields and checkboxes.
---
```

## Use instead
```markdown
---
name: pdf-tools
description: "Fill PDF forms: text fields and checkboxes."
---
```
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule


@rule("SK001", "frontmatter", "error")
def check(tree: SkillTree) -> Iterator[Finding]:
    fm = tree.frontmatter
    if fm.data is None:
        fix = (
            "fix the YAML at this line (quote values that contain ': ' or start with a quote)"
            if fm.end_line
            else "start SKILL.md with a '---' line, the YAML fields, and a closing '---' line"
        )
        yield finding(
            "SK001", "error", fm.error or "missing frontmatter", SKILL_MD, fm.error_line or 1, fix
        )
