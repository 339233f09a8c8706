"""Someone cancelled the job (scancel, or `nel kill`).

## What it does
Finds slurmstepd's plain `*** JOB N ON NODE CANCELLED AT T ***` (no DUE TO ...).

## Why is this bad
Not a fault of the config: a person or a script stopped it, and nel 0.2.6's run.sub
does not resume a CANCELLED job, so the chain ends there.

## Fix
Nothing to change. If the cancel was not meant, resume it; if it was meant (the run
was wrong), the other signatures or `evalkit validate` say what to change.
"""

from __future__ import annotations

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, TaskFacts
from evalkit.checks.failures.rules._slurm import SOURCE, pattern

ID = "slurm-cancelled"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    job = hit.groups.get("job")
    return f"job {job} was cancelled (scancel or nel kill); run.sub does not resume it"


RULE = FailureRule(
    id=ID,
    name="cancelled",
    doc=__doc__,
    source=SOURCE,
    needle="CANCELLED AT",
    pattern=pattern(""),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=85,
    ends_job=True,
)
