"""Every relative link target in a markdown file resolves.

## What it does
Resolves each link and image target relative to the file that holds it (anchors and
queries dropped); URLs, bare `#anchors` and absolute paths are not checked. A target
found nowhere is an error. One that resolves from the file but lies outside the skill is
a note. One that does not resolve from the file but exists in the repository or a
sibling folder is a warning that names the path that does resolve.

## Why is this bad
A broken link sends the agent to a file that is not there, and it either gives up or
guesses.

Severity: error when the target exists nowhere, since every agent fails to follow it;
warning when it resolves only from another folder (it works for some readers, not from
this file); info when it leaves the skill (it works in this repository, not in a copy of
the skill alone).

## Example
In SKILL.md, with the file at references/forms.md:
```markdown
See the [form guide](reference/forms.md).
```

## Use instead
Links are relative to the file that holds them:
```markdown
See the [form guide](references/forms.md).
```
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding, normalize
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.paths import find_elsewhere, link_path
from evalkit.skillcheck.registry import rule


@rule("SK008", "link-target", "error|warning|info")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for link in doc.links:
            target = link_path(link.target)
            if target is None:
                continue
            rel = doc.rel.parent / target
            if tree.exists(rel):
                if not tree.inside(rel):
                    yield finding(
                        "SK008",
                        "info",
                        f"link {link.target!r} resolves outside the skill directory",
                        doc.rel,
                        link.line,
                        "fine inside this repository; a copy of the skill alone lacks it",
                    )
                continue
            found = find_elsewhere(tree.root, normalize(rel)) if tree.inside(rel) else None
            if found:
                yield finding(
                    "SK008",
                    "warning",
                    f"link target {link.target!r} does not resolve from this file; "
                    f"found in {found[0]} at {found[1]}",
                    doc.rel,
                    link.line,
                    "make the link relative to this file",
                )
            else:
                yield finding(
                    "SK008",
                    "error",
                    f"link target {link.target!r} does not exist",
                    doc.rel,
                    link.line,
                    "fix the path (relative to this file) or add the file",
                )
