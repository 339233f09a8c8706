"""A task other than MRCR wrote its `artifacts/results.yml`.

## What it does
Looks for `artifacts/results.yml` (a malformed one is unreadable input: exit 2, naming
the file and line). Only on a finished run.

## Why is this bad
Severity: fail (`incomplete`): without it the evaluation did not finish and there is no
score to quote.

## Example
`no artifacts/results.yml: the evaluation did not finish`.

## Fix
Read the task's logs for the reason it stopped, resume or rerun it.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INCOMPLETE, Check, failed, passed
from evalkit.checks.rule import Rule

ID = "results-file"


def check_results_file(present: bool) -> Check:
    if not present:
        return failed(ID, INCOMPLETE, "no artifacts/results.yml: the evaluation did not finish")
    return passed(ID, "artifacts/results.yml present and parses")


def judge(ev: Evidence) -> Check | None:
    return None if ev.mrcr else check_results_file(ev.results_present)


RULE = Rule(ID, "results.yml written", judge, __doc__ or "", growing=False)
