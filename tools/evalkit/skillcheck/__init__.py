"""check-skill: a skill tree checked against the Agent Skills spec and configured conventions.

`check_skill(root)` reads the settings (config), loads the tree (loader), runs every rule
that is on (rules, one module each), applies the configured severities and the inline
`<!-- evalkit: disable=SKnnn -->` comments, and returns Findings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evalkit.findings import Finding
from evalkit.skillcheck.config import Settings, load_settings
from evalkit.skillcheck.loader import load_skill
from evalkit.skillcheck.rules import RULES, Rule

__all__ = ["RULES", "Rule", "Settings", "check_skill", "settings_for"]


def settings_for(root: str | Path) -> Settings:
    return load_settings(Path(root), {r.id for r in RULES})


def check_skill(root: str | Path, settings: Settings | None = None) -> list[Finding]:
    """All findings for the skill rooted at `root`; raises InputError without a SKILL.md."""
    tree = load_skill(root)
    tree.settings = settings if settings is not None else settings_for(root)
    docs = {str(d.rel): d for d in tree.docs}
    findings: list[Finding] = []
    for rule in RULES:
        if not rule.enabled(tree.settings):
            continue
        for finding in rule.check(tree):
            doc = docs.get(finding.file or "")
            if doc is not None and doc.suppressed(finding.rule, finding.line):
                continue
            severity = tree.settings.severity.get(finding.rule)
            # An override moves errors and warnings; notes (info) stay notes.
            if severity and finding.severity != "info":
                finding = replace(finding, severity=severity)
            findings.append(finding)
    return findings
