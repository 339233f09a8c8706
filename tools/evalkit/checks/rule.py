"""A run check as a rule: its id, what a failure means, and the function that judges the
evidence. What `evalkit status` does with a result is one table here, so status turns a
rule's result into advice without knowing any rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import FAIL, INCOMPLETE, INVALID, WARN, Check

# The action status gives for a result: (status, kind) -> stop | watch | resume.
STOP, WATCH, RESUME = "stop", "watch", "resume"
STATUS_ACTION = {
    (FAIL, INVALID): STOP,  # the score will not be usable: kill, fix, relaunch
    (FAIL, INCOMPLETE): RESUME,  # the run is short of its end: resume it
    (WARN, None): WATCH,  # let it run, read the quoted lines before the score
}


def status_action(check: Check) -> str:
    return STATUS_ACTION[(check.status, check.kind if check.status == FAIL else None)]


@dataclass(frozen=True)
class Rule:
    id: str
    name: str  # a few words, for the table in references/run-validation.md
    judge: Callable[[Evidence], Check | None]  # None: nothing to judge in this evidence
    doc: str  # What it does / Why is this bad (Severity: ...) / Example / Fix
    growing: bool = True  # judged on a run still being written (status), not only at its end

    @property
    def summary(self) -> str:
        return self.doc.strip().split("\n\n", 1)[0].strip()
