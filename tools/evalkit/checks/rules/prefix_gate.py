"""The mean `prefix_matched` is where a healthy MRCR run puts it.

## What it does
Averages `prefix_matched` over the rollouts (the share of responses that start with the
item's required prefix). A growing run is judged after 20 rollouts (or the whole canary).
It also counts the responses whose graded text still carries `<think>` markup (the
reasoning parser did not split it off) and names that count with its threshold.

## Why is this bad
Severity: fail (`invalid`) below 0.25: the prefix gate is failing, usually reasoning
leaking into the answer, so the score measures the harness, not the model. Below 0.45 is a
warning (the golden 1M run: about 0.55). Reasoning markup in up to 5 % of the rollouts
is a note in the message; above 5 % it is a warning (the line `regrade` draws for its
`reasoning_leak` flag, `benchmarks/mrcr/leaks.py`).

## Example
`mean prefix_matched 0.080 < 0.25: the prefix gate is failing`;
`mean prefix_matched 0.600 (...); 3 of 20 responses carry reasoning markup (15.0% > 5%: ...)`.

## Fix
Check the reasoning parser and `process_reasoning_traces`, then rerun.
"""

from __future__ import annotations

from evalkit.benchmarks.mrcr.leaks import leak_reading
from evalkit.checks.evidence import Evidence
from evalkit.checks.model import (
    INVALID,
    PASS,
    PREFIX_INVALID_BELOW,
    PREFIX_WARN_BELOW,
    WARN,
    Check,
    failed,
    passed,
    warned,
)
from evalkit.checks.rule import Rule

ID = "prefix-gate"


def check_prefix_gate(mean_prefix_matched: float | None, leaks: dict | None = None) -> Check:
    """LEAKS (benchmarks.mrcr.leaks.leak_reading) adds the reasoning-markup count with
    its threshold; a share above it turns a pass into a warning."""
    check = _gate(mean_prefix_matched)
    if leaks is None or leaks["level"] == "none" or mean_prefix_matched is None:
        return check
    status = WARN if leaks["level"] == "problem" and check.status == PASS else check.status
    return Check(check.id, status, f"{check.message}; {leaks['message']}", check.kind)


def _gate(mean_prefix_matched: float | None) -> Check:
    if mean_prefix_matched is None:
        return warned(ID, "no rollouts to measure mean prefix_matched")
    value = f"mean prefix_matched {mean_prefix_matched:.3f}"
    if mean_prefix_matched < PREFIX_INVALID_BELOW:
        return failed(
            ID,
            INVALID,
            f"{value} < {PREFIX_INVALID_BELOW}: the prefix gate is failing, usually "
            "reasoning leaking into the answer (check the reasoning parser and "
            "process_reasoning_traces)",
        )
    if mean_prefix_matched < PREFIX_WARN_BELOW:
        return warned(
            ID,
            f"{value} < {PREFIX_WARN_BELOW} (golden 1M run about 0.55): look for reasoning "
            "leaking into some answers",
        )
    return passed(ID, f"{value} (golden 1M run about 0.55)")


def judge(ev: Evidence) -> Check | None:
    if not ev.mrcr or ev.rollouts is None or not ev.sample_ready():
        return None
    facts = ev.rollouts
    leaks = None
    if facts.reasoning_leaks is not None:  # counted over every record, as regrade does
        leaks = leak_reading(facts.reasoning_leaks, facts.records)
    return check_prefix_gate(facts.prefix_share, leaks)


RULE = Rule(ID, "prefix gate healthy", judge, __doc__ or "")
