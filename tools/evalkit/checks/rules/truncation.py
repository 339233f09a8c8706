"""The last line of the rollouts file is complete.

## What it does
Reads whether `evaluator_rollouts.jsonl` ends in a cut-off line (no newline and not valid
JSON). Blank lines are ignored and named. Only on a finished run: on a growing one a
partial last line is a write in progress.

## Why is this bad
Severity: fail (`incomplete`): the writer was interrupted, so at least one rollout is
lost and the aggregate cannot be compared with the file.

## Example
`the last line of evaluator_rollouts.jsonl is cut off (the writer was interrupted)`.

## Fix
Resume the run; Gym rewrites the missing rollouts.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INCOMPLETE, Check, failed, passed
from evalkit.checks.rule import Rule

ID = "truncation"


def check_truncation(truncated_last_line: bool, blank_lines: int = 0) -> Check:
    if truncated_last_line:
        return failed(
            ID,
            INCOMPLETE,
            "the last line of evaluator_rollouts.jsonl is cut off (the writer was "
            "interrupted); resume the run",
        )
    if blank_lines:
        return passed(ID, f"every line complete ({blank_lines} blank lines ignored)")
    return passed(ID, "every line complete")


def judge(ev: Evidence) -> Check | None:
    if not ev.mrcr or ev.rollouts is None:
        return None
    return check_truncation(ev.rollouts.truncated_last_line, ev.rollouts.blank_lines)


RULE = Rule(ID, "last line complete", judge, __doc__ or "", growing=False)
