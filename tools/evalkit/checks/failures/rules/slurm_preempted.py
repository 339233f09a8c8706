"""Slurm preempted the job for one of higher priority.

## What it does
Finds slurmstepd's `*** JOB N ON NODE CANCELLED AT T DUE TO PREEMPTION ***`.

## Why is this bad
Not the config's fault: nel 0.2.6's run.sub resumes a PREEMPTED job through its chain;
the work already written is kept.

## Fix
Nothing; let the chain resume it. On a partition that preempts often, a partition or
QOS that does not (`execution.partition`, or `execution.sbatch_extra_flags.qos`).
"""

from __future__ import annotations

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, TaskFacts
from evalkit.checks.failures.rules._slurm import SOURCE, pattern

ID = "slurm-preempted"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"Slurm preempted job {hit.groups.get('job')} (a resume event)"


RULE = FailureRule(
    id=ID,
    name="preempted",
    doc=__doc__,
    source=SOURCE,
    needle="DUE TO PREEMPTION",
    pattern=pattern(" DUE TO PREEMPTION"),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=75,
    transient=True,
)
