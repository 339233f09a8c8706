"""`results.yml` holds at least one score, each a finite number.

## What it does
Reads every `results.{tasks,groups}.<name>.metrics.<metric>.scores.<score>.value` of
`artifacts/results.yml`. Only on a finished run that wrote the file.

## Why is this bad
Severity: fail. No score at all is `incomplete`; a NaN, infinite or missing value is
`invalid` (a mean over a failed computation is not a score).

## Example
`1 score(s) missing or not a finite number` (the message names the first key).

## Fix
Read the task's logs for the failing samples or judge calls, fix the cause and rerun.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INCOMPLETE, INVALID, Check, failed, passed
from evalkit.checks.rule import Rule
from evalkit.runs.results import Score

ID = "score"


def check_score(scores: Sequence[Score]) -> Check:
    """Scores from evalkit.runs.results.iter_scores (a NaN or infinite value reads as None)."""
    if not scores:
        return failed(ID, INCOMPLETE, "results.yml holds no score value")
    bad = [s for s in scores if s.value is None]
    if bad:
        return failed(
            ID, INVALID, f"{len(bad)} score(s) missing or not a finite number, e.g. {bad[0].key}"
        )
    more = f" (+{len(scores) - 1} more)" if len(scores) > 1 else ""
    return passed(ID, f"{scores[0].key} = {scores[0].value}{more}")


def judge(ev: Evidence) -> Check | None:
    if ev.mrcr or not ev.results_present:
        return None
    return check_score(ev.scores or [])


RULE = Rule(ID, "a finite score", judge, __doc__ or "", growing=False)
