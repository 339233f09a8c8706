"""Every item's score is the one its own grading record gives, with a reply behind it.

## What it does
For a harness that keeps a record of how it graded each item (simple-evals: the row's
html prints the correct answer, the extracted answer and the score it stored, and the
row's convo ends with the model's reply), holds each row's `score` against that record:
the Score line must be the row's score; for GPQA without a `custom_config`, the score
must be 1 exactly when the extracted letter is the correct one; and every row needs a
reply, non-empty when it scored. Only on a finished run whose harness keeps the record.

## Why is this bad
Severity: fail (`invalid`). A score its own grading record does not give is not what the
harness measured: the row was edited, or written by something other than the harness.
A 1 set to 0 (or the reverse) moves the mean, and compare pairs these very rows, so the
wrong value would reach the delta as a silent zero. A score with no reply behind it
grades nothing.

## Example
`1 of 198 rows not backed by the harness's grading record: item 5 (repeat 0): the row's
score is 0.0; the harness's grading record says Score 1.0`.

## Fix
Find what rewrote the item store (a script, a copy from another run) and rerun the task
into a fresh output directory; never edit per-item files by hand.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed
from evalkit.checks.rule import Rule
from evalkit.runs.outcomes import Outcome

ID = "item-grading"
SHOWN = 3  # conflicts quoted in the message


def judge(ev: Evidence) -> Check | None:
    outcomes = ev.outcomes
    if ev.growing or outcomes is None or getattr(outcomes, "graded", None) is None:
        return None
    rows = sum(1 for item in outcomes.items if item.outcome is not Outcome.MISSING)
    if outcomes.conflicts:
        shown = "; ".join(
            f"item {c.item_id} (repeat {c.repeat}): {c.reason}" for c in outcomes.conflicts[:SHOWN]
        )
        more = len(outcomes.conflicts) - SHOWN
        tail = f" (and {more} more)" if more > 0 else ""
        return failed(
            ID,
            INVALID,
            f"{len(outcomes.conflicts)} of {rows} rows not backed by the harness's grading "
            f"record: {shown}{tail}",
        )
    if not outcomes.graded:
        none = "none keeps a grading record to hold its score against"
        return passed(ID, f"every one of {rows} rows has a reply; {none}")
    return passed(ID, f"all {outcomes.graded} graded rows' scores match the harness's record")


RULE = Rule(ID, "item scores backed by their grading", judge, __doc__ or "", growing=False)
