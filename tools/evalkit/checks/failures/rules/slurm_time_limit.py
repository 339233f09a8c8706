"""Slurm ended the job at its time limit.

## What it does
Finds slurmstepd's `*** JOB N ON NODE CANCELLED AT T DUE TO TIME LIMIT ***` in the
task's logs.

## Why is this bad
Not a fault of the config by itself: nel 0.2.6's run.sub queued a follow-up job at the
start of this one (`sbatch --dependency=afternotok`) that resumes from what was written,
until `execution.max_walltime` is spent. It becomes a fault when every job of the chain
ends this way without progress (the attempt budget says so).

## Fix
Nothing while the follow-up job is queued. When the chain has ended, resume it; when the
jobs make no progress between time limits, raise `execution.walltime` (up to the
partition's limit) or the throughput before resuming.
"""

from __future__ import annotations

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, TaskFacts
from evalkit.checks.failures.rules._slurm import SOURCE, pattern

ID = "slurm-time-limit"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"Slurm ended job {hit.groups.get('job')} at its time limit (a resume event)"


RULE = FailureRule(
    id=ID,
    name="job time limit",
    doc=__doc__,
    source=SOURCE,
    needle="DUE TO TIME LIMIT",
    pattern=pattern(" DUE TO TIME LIMIT"),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=80,
    applies=lambda hit, facts: (
        not (hit.job in facts.waiting_jobs and hit.job not in facts.ready_jobs)
    ),
)
