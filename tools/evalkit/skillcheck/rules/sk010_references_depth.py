"""References are one level deep from SKILL.md.

## What it does
Three checks, all warnings: (1) markdown files under references/ sit directly in it,
with no subfolders; (2) a references/ file does not link to a markdown file in a
subfolder of references/; (3) every markdown file directly under references/ is named
by SKILL.md, as a link or a path in code, so no reference is reachable only through
another one.

## Why is this bad
Agents read SKILL.md whole but often only skim a file it points to; a fact two hops
away is easily missed.

Severity: warning, the spec recommends one level of references, it does not require it.

## Example
A SKILL.md that links only references/forms.md, which in turn links
references/api/fields.md.

## Use instead
Move the file to references/fields.md and link it from SKILL.md with a line saying
when to read it.
"""

from collections.abc import Iterator
from pathlib import PurePosixPath

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding, mentions, normalize
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.paths import link_path
from evalkit.skillcheck.registry import rule

REFERENCES = PurePosixPath("references")


@rule("SK010", "references-depth", "warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    named_by_skill = mentions(tree.skill_md, tree.path_roots)
    for doc in tree.docs:
        if doc.rel.parts[0:1] != ("references",) or doc.rel.suffix != ".md":
            continue
        if doc.rel.parent != REFERENCES:
            yield finding(
                "SK010",
                "warning",
                "reference file is in a subfolder of references/",
                doc.rel,
                1,
                "move it directly under references/ and link it from SKILL.md",
            )
            continue
        for link in doc.links:
            target = link_path(link.target)
            if target is None:
                continue
            rel = normalize(doc.rel.parent / target)
            if (
                rel.suffix == ".md"
                and rel.parts[:1] == ("references",)
                and rel.parent != REFERENCES
            ):
                yield finding(
                    "SK010",
                    "warning",
                    f"links to {str(rel)!r}, a reference two levels deep",
                    doc.rel,
                    link.line,
                    "keep reference files directly under references/",
                )
        if doc.rel not in named_by_skill:
            yield finding(
                "SK010",
                "warning",
                "reference file is not named in SKILL.md",
                doc.rel,
                1,
                "link it from SKILL.md so an agent can reach it in one hop",
            )
