"""Every rollout the variant defines is in the rollouts file, and no more.

## What it does
Counts the unique (task, rollout) records in `artifacts/evaluator_rollouts.jsonl` and
compares them with the expectation: the MRCR variant's row count (from the run's config,
else the agent that wrote the rollouts), a canary's `++limit=N`, times `++num_repeats`;
`--expected N` overrides all of these. On a growing run it waits for the end files.

## Why is this bad
Severity: fail. Fewer records is `incomplete` (the run stopped early; the mean covers a
subset of the benchmark); more is `invalid` (another variant, repeat count or dataset than
intended, so the score is not the benchmark's). An unknown expectation is a warning.

## Example
`1470 of 2363 expected rollouts (config_n3_1m.yaml: 2363 rows): 893 missing`.

## Fix
Resume the run (progress is kept), then validate again; for too many records, check the
variant and `++num_repeats` in the config and rerun.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INCOMPLETE, INVALID, Check, Expectation, failed, passed, warned
from evalkit.checks.rule import Rule

ID = "rollout-count"


def check_rollout_count(found: int, expectation: Expectation | None) -> Check:
    if expectation is None:
        return warned(
            ID,
            f"{found} rollouts; expected count unknown (no MRCR variant in the run's config "
            "or rollouts); pass --expected N",
        )
    want = expectation.count
    if found < want:
        return failed(
            ID,
            INCOMPLETE,
            f"{found} of {want} expected rollouts ({expectation.source}): {want - found} "
            "missing; resume the run (progress is kept) before quoting a score",
        )
    if found > want:
        return failed(
            ID,
            INVALID,
            f"{found} rollouts but {want} expected ({expectation.source}): a different "
            "variant, repeat count or dataset than intended",
        )
    return passed(ID, f"{found} of {want} expected rollouts ({expectation.source})")


def judge(ev: Evidence) -> Check | None:
    if not ev.mrcr or (ev.growing and not ev.finished):
        return None
    if ev.rollouts is None:
        exp = ev.expectation
        expected = f" ({exp.count} rollouts expected)" if exp else ""
        return failed(ID, INCOMPLETE, f"no artifacts/evaluator_rollouts.jsonl{expected}")
    return check_rollout_count(ev.rollouts.unique, ev.expectation)


RULE = Rule(ID, "rollouts counted", judge, __doc__ or "")
