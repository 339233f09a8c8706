"""run.sub's auto-resume chain ended because the previous job ended in a state it does
not resume.

## What it does
Finds run.sub's `previous SLURM_JOB_ID N finished with 'STATE' state. EXIT!` at the top
of the follow-up job's `slurm-<job>.log` (it resumes only TIMEOUT, PREEMPTED and
NODE_FAIL).

## Why is this bad
The previous job failed or was cancelled; its own logs hold the cause, which a more
specific signature names when it matched. Resuming a FAILED job without a change
repeats the failure.

## Fix
Fix the cause the previous job's logs show; resume only a job that was cancelled by
mistake.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import NONE, Change, FailureRule, Hit, Source, TaskFacts

ID = "chain-ended"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"the previous job {hit.groups.get('job')} ended {hit.groups.get('state')}, which "
        "run.sub does not resume, so the chain ended; no signature matched that job's "
        f"logs: read logs/*-{hit.groups.get('job')}*.log for its last error"
    )


RULE = FailureRule(
    id=ID,
    name="chain ended",
    doc=__doc__,
    source=Source(
        "nemo-evaluator-launcher",
        "0.2.6",
        "nemo_evaluator_launcher/executors/slurm/executor.py",
        1757,
    ),
    needle="EXIT!",
    pattern=re.compile(
        r"^previous SLURM_JOB_ID (?P<job>\d+) finished with '(?P<state>[^'\n]{1,60})' state\. EXIT!"
    ),
    logs=("slurm-",),
    resubmit=False,
    next=NONE,
    fix=_fix,
    cause=_cause,
    rank=90,
    ends_job=True,
    # A cancel is slurm-cancelled's (nothing to fix); this rule is for a failed job.
    applies=lambda hit, facts: not hit.groups.get("state", "").startswith("CANCELLED"),
)
