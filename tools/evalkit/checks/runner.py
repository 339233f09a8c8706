"""One runner for validate and status: every rule over one task's evidence, in order."""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import Check
from evalkit.checks.rules import RULES


def run_rules(ev: Evidence) -> list[Check]:
    """The results of every rule that has something to judge in EV. On a growing run the
    rules that only make sense at the end (truncation, aggregate, results) are skipped."""
    checks: list[Check] = []
    for rule in RULES:
        if ev.growing and not rule.growing:
            continue
        check = rule.judge(ev)
        if check is not None:
            checks.append(check)
    return checks
