"""`name` differs from the directory name (warning).

## What it does
Compares a valid `name` with the name of the skill directory (symlinks resolved).

## Why is this bad
Installers (`npx skills add`) put the skill under a directory named after `name`, and
the spec's validator insists that the two match there. A checkout of a repository may be
named anything, so the mismatch matters only for an installed copy.

Severity: warning, it breaks only installed copies, never a checkout.

## Example
A directory `pdf-tools-main` holding a SKILL.md with:
```markdown
---
name: pdf-tools
---
```

## Use instead
For an installed copy, rename the directory to `pdf-tools`; for a checkout, nothing.
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding, frontmatter_value, valid_name
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule


@rule("SK003", "name-directory", "warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    name, line = frontmatter_value(tree, "name")
    directory = tree.root.resolve().name
    if isinstance(name, str) and valid_name(name) and directory != name:
        yield finding(
            "SK003",
            "warning",
            f"skill name {name!r} differs from the directory name {directory!r}",
            SKILL_MD,
            line,
            f"installed copies must live in a directory named {name!r}",
            "name",
        )
