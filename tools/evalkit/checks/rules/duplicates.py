"""No (task, rollout) record appears twice with a different reward or answer.

## What it does
Counts records whose (task, rollout) key was already read. An identical repeat (a resume
appended it again) is counted once; a repeat with another reward or answer conflicts.

## Why is this bad
Severity: fail (`invalid`) for a conflicting repeat: the file mixes two runs, and which
record the score used is arbitrary. Identical repeats are a warning.

## Example
`3 (task, rollout) records repeated with a different reward or answer: the file mixes two
runs`.

## Fix
Never point two runs at one output directory; rerun into a fresh one.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed, warned
from evalkit.checks.rule import Rule

ID = "duplicates"


def check_duplicates(duplicates: int, conflicting: int) -> Check:
    if conflicting:
        return failed(
            ID,
            INVALID,
            f"{conflicting} (task, rollout) records repeated with a different reward or "
            "answer: the file mixes two runs",
        )
    if duplicates:
        return warned(
            ID,
            f"{duplicates} identical duplicate (task, rollout) records (a resume appended "
            "them again); counted once",
        )
    return passed(ID, "no duplicate (task, rollout) records")


def judge(ev: Evidence) -> Check | None:
    if not ev.mrcr or ev.rollouts is None:
        return None
    return check_duplicates(ev.rollouts.duplicates, ev.rollouts.conflicting)


RULE = Rule(ID, "no conflicting repeats", judge, __doc__ or "")
