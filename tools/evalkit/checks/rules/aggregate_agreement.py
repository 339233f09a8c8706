"""Gym's aggregate file agrees with the rollouts it summarises.

## What it does
Recomputes pass@1 and every `n_needles=K` stratum from the rollouts and compares them
with `evaluator_rollouts_aggregate_metrics.json` (the entry of the rollouts' agent), to a
relative tolerance of 1e-6. Only on a finished run.

## Why is this bad
Severity: fail. A disagreeing or corrupt file is `invalid` (the number quoted from it is
not what the rollouts say); a missing file is `incomplete` (the run did not reach its
aggregation step). With a truncated rollouts file it is not compared (a warning).

## Example
`aggregate file disagrees with the rollouts: pass@1/accuracy 0.61 in the file vs 0.58
recomputed`.

## Fix
Resume a run that did not aggregate; for a disagreement, find out who edited the file
or which run wrote the rollouts, and rerun.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import (
    AGGREGATE_ABS_TOL,
    AGGREGATE_REL_TOL,
    INCOMPLETE,
    INVALID,
    Check,
    failed,
    passed,
    warned,
)
from evalkit.checks.rule import Rule
from evalkit.errors import InputError

ID = "aggregate-agreement"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=AGGREGATE_REL_TOL, abs_tol=AGGREGATE_ABS_TOL)


def check_aggregate(
    file_metrics: dict[str, Any] | None,
    pass_at_1: float | None,
    strata: dict[str, float],
) -> Check:
    """Compare the aggregate file's pass@1 and needle strata with the recomputation."""
    if file_metrics is None:
        return failed(
            ID,
            INCOMPLETE,
            "no evaluator_rollouts_aggregate_metrics.json: the run did not reach its "
            "aggregation step",
        )
    if pass_at_1 is None:
        return warned(ID, "no rollouts to recompute the aggregate from")
    wanted = {"pass@1/accuracy": pass_at_1}
    wanted.update({f"n_needles={k}/pass@1/accuracy": v for k, v in strata.items()})
    stored_strata = {
        key
        for key in file_metrics
        if key.startswith("n_needles=") and key.endswith("/pass@1/accuracy")
    }
    problems: list[str] = []
    for key, ours in wanted.items():
        theirs = file_metrics.get(key)
        if isinstance(theirs, bool) or not isinstance(theirs, (int, float)):
            problems.append(f"{key} missing")
        elif not _close(float(theirs), ours):
            problems.append(f"{key} {float(theirs):.6g} in the file vs {ours:.6g} recomputed")
    for key in sorted(stored_strata - set(wanted)):
        problems.append(f"{key} in the file but no such stratum in the rollouts")
    if problems:
        return failed(
            ID,
            INVALID,
            "aggregate file disagrees with the rollouts: " + "; ".join(problems[:4]),
        )
    return passed(
        ID,
        f"pass@1 {pass_at_1:.2f} and {len(strata)} needle strata agree with the rollouts "
        f"(relative tolerance {AGGREGATE_REL_TOL:g})",
    )


def judge(ev: Evidence) -> Check | None:
    from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries, select_agent

    facts = ev.rollouts
    if not ev.mrcr or facts is None:
        return None
    if ev.aggregate_path is None:
        return check_aggregate(None, None, {})
    if facts.truncated_last_line:
        # The cut-off record is lost to us but not to the aggregate: no fair comparison.
        return warned(ID, "not compared: the rollouts file is truncated (see truncation)")
    # A corrupt aggregate file is a failed check (the run's own output is broken), as is a
    # missing entry; only the run path itself is a usage question.
    try:
        entries = read_aggregate_entries(ev.aggregate_path)
        _name, file_metrics = select_agent(entries, facts.agent, ev.aggregate_path)
    except InputError as err:
        message = f"{Path(err.path or '').name}: {err.message}" if err.path else err.message
        return failed(ID, INVALID, message)
    return check_aggregate(file_metrics, facts.pass_at_1, dict(facts.strata))


RULE = Rule(ID, "aggregate agrees", judge, __doc__ or "", growing=False)
