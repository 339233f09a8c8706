"""Few responses ended at the output limit.

## What it does
Divides the responses that ended with `finish_reason` `length` by all responses: from
`eval_factory_metrics.json` `response_stats` when written, else (MRCR) the rollouts with
`incomplete_details`. A growing MRCR run is judged after 20 rollouts.

## Why is this bad
Severity: fail (`invalid`) above 10 %: a capped response scores about 0, so the score
measures the token budget. Above 5 % is a warning (the golden 1M run: 2.4 %); a task
with no `response_stats` is a warning.

## Example
`40/200 responses (20.0%) ended at the output limit (...) > 10%`.

## Fix
Raise `max_model_len` or the task's token budget and rerun.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import (
    INVALID,
    LENGTH_INVALID_ABOVE,
    LENGTH_WARN_ABOVE,
    Check,
    failed,
    passed,
    warned,
)
from evalkit.checks.rule import Rule

ID = "output-limit"
FROM_METRICS = "eval_factory_metrics.json response_stats"


def check_output_limit(length_count: int | None, total: int | None, source: str) -> Check:
    if not total or length_count is None:
        return warned(ID, f"no responses to account for the output limit ({source})")
    fraction = length_count / total
    value = f"{length_count}/{total} responses ({fraction:.1%}) ended at the output limit"
    if fraction > LENGTH_INVALID_ABOVE:
        return failed(
            ID,
            INVALID,
            f"{value} ({source}) > {LENGTH_INVALID_ABOVE:.0%}: capped responses score "
            "about 0; raise max_model_len / the token budget and rerun",
        )
    if fraction > LENGTH_WARN_ABOVE:
        return warned(ID, f"{value} ({source}) > {LENGTH_WARN_ABOVE:.0%} (golden 1M run: 2.4%)")
    return passed(ID, f"{value} ({source})")


def judge(ev: Evidence) -> Check | None:
    if ev.mrcr:
        if ev.rollouts is None or not ev.sample_ready():
            return None
        if ev.response_stats is not None:
            return check_output_limit(*ev.response_stats, FROM_METRICS)
        source = "rollouts so far" if ev.growing else "rollouts with incomplete_details"
        return check_output_limit(ev.rollouts.incomplete, ev.rollouts.records, source)
    if ev.growing:
        return None
    if ev.response_stats is not None:
        return check_output_limit(*ev.response_stats, FROM_METRICS)
    return warned(ID, "no response_stats in eval_factory_metrics.json")


RULE = Rule(ID, "output limit rarely hit", judge, __doc__ or "")
