"""SKILL.md has at most `max-lines` lines (default 500, the spec's recommendation).

## What it does
Counts SKILL.md's lines and reports the first line past the limit. The limit is the
`max-lines` setting of the check-skill table, 500 by default.

## Why is this bad
SKILL.md is loaded whole whenever the skill triggers, and every line of it costs context
on every use. Detail belongs in references/ files that the agent reads on demand
(progressive disclosure).

Severity: warning, a long SKILL.md still works, it only costs context; a repository
that keeps a tight budget raises it with `severity = { SK007 = "error" }`.

## Example
A SKILL.md of 640 lines that inlines a full API reference.

## Use instead
Keep the workflow in SKILL.md, move the API reference into a file under references/,
and link it from SKILL.md with a line saying when to read it.
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import SKILL_MD, finding
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule


@rule("SK007", "skill-md-length", "warning", ("max-lines",))
def check(tree: SkillTree) -> Iterator[Finding]:
    count, limit = tree.skill_md.line_count, tree.settings.max_lines
    if count > limit:
        yield finding(
            "SK007",
            "warning",
            f"SKILL.md has {count} lines, more than {limit}",
            SKILL_MD,
            limit + 1,
            "move detail into references/ and link to it",
        )
