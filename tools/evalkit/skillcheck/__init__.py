"""check-skill: the skill package checked against the Agent Skills spec and its own rules.

`check_skill(root)` loads the tree (loader), runs every rule (rules) and returns Findings.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.findings import Finding
from evalkit.skillcheck.loader import load_skill
from evalkit.skillcheck.rules import RULES, Rule

__all__ = ["RULES", "Rule", "check_skill"]


def check_skill(root: str | Path) -> list[Finding]:
    """All findings for the skill rooted at `root`; raises InputError without a SKILL.md."""
    tree = load_skill(root)
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule.check(tree))
    return findings
