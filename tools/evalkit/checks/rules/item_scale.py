"""Every item's score lies in the range its metric declares.

## What it does
Reads each item's score from the harness's per-item files and checks it against the
range the task's adapter declares for one item (`benchmarks/*/adapter.py`, from the
metric's definition: 0-1 for simple-evals, HLE and lm-eval's accuracy metrics), allowing
1e-9 for float rounding (a mean of 0/1 values can land on 1.0000000000000002). An
undeclared range (an lm-eval metric outside the known set) is said, not checked.

## Why is this bad
Severity: fail (`invalid`). An item outside its range is not that metric's score: the
file was edited or written by another metric, and any mean, delta or margin computed on
it is on an unknown scale. Guessing the scale from the values instead turned a 15-point
loss into -0.15 points (issue 37).

## Example
`item 17 (repeat 0) scored 3.0, outside 0-1`.

## Fix
Find out what wrote the per-item file (a metric change, an edit) and rerun the task.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed
from evalkit.checks.rule import Rule

ID = "item-scale"


def judge(ev: Evidence) -> Check | None:
    from evalkit.benchmarks.adapter import out_of_range

    outcomes = ev.outcomes
    if ev.growing or outcomes is None or not outcomes.items:
        return None
    if ev.item_scale is None:
        return passed(ID, "not checked: the adapter declares no range for this metric")
    bad = out_of_range(outcomes, ev.item_scale)
    if bad:
        item, repeat, score = bad[0]
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return failed(
            ID,
            INVALID,
            f"item {item} (repeat {repeat}) scored {score!r}, outside {ev.item_scale}{more}",
        )
    return passed(ID, f"all {len(outcomes.items)} item scores within {ev.item_scale}")


RULE = Rule(ID, "item scores in range", judge, __doc__ or "", growing=False)
