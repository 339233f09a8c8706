"""The mean `prefix_matched` is where a healthy MRCR run puts it.

## What it does
Averages `prefix_matched` over the rollouts (the share of responses that start with the
item's required prefix). A growing run is judged after 20 rollouts (or the whole canary).

## Why is this bad
Severity: fail (`invalid`) below 0.25: the prefix gate is failing, usually reasoning
leaking into the answer, so the score measures the harness, not the model. Below 0.45 is a
warning (the golden 1M run: about 0.55).

## Example
`mean prefix_matched 0.080 < 0.25: the prefix gate is failing`.

## Fix
Check the reasoning parser and `process_reasoning_traces`, then rerun.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import (
    INVALID,
    PREFIX_INVALID_BELOW,
    PREFIX_WARN_BELOW,
    Check,
    failed,
    passed,
    warned,
)
from evalkit.checks.rule import Rule

ID = "prefix-gate"


def check_prefix_gate(mean_prefix_matched: float | None) -> Check:
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
    return check_prefix_gate(ev.rollouts.prefix_share)


RULE = Rule(ID, "prefix gate healthy", judge, __doc__ or "")
