"""`name` is present: 1-64 lowercase letters (any script), digits and single hyphens.

## What it does
Checks the frontmatter's `name` as the reference validator does: a string that, after
NFKC normalization, has 1 to 64 characters, all lowercase letters (any script), digits
or hyphens, with no leading, trailing or doubled hyphen.

## Why is this bad
The Agent Skills spec uses the name as the skill's identifier and its install directory;
a name outside these characters is rejected or installed under a mangled directory.

Severity: error, the spec's validator refuses the skill.

## Example
```markdown
---
name: PDF_Tools
---
```

## Use instead
```markdown
---
name: pdf-tools
---
```
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding, frontmatter_value, valid_name
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule


@rule("SK002", "name-format", "error")
def check(tree: SkillTree) -> Iterator[Finding]:
    if tree.frontmatter.data is None:
        return
    name, line = frontmatter_value(tree, "name")
    fix = "use 1-64 characters from a-z, 0-9 and '-', e.g. 'name: evaluation'"
    if "name" not in tree.frontmatter.data:
        yield finding("SK002", "error", "frontmatter has no 'name'", SKILL_MD, line, fix, "name")
    elif not isinstance(name, str):
        yield finding("SK002", "error", "'name' must be a string", SKILL_MD, line, fix, "name")
    elif not valid_name(name):
        yield finding("SK002", "error", f"invalid skill name {name!r}", SKILL_MD, line, fix, "name")
