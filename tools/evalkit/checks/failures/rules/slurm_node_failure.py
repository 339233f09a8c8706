"""Slurm ended the job because a node failed.

## What it does
Finds slurmstepd's `*** JOB N ON NODE CANCELLED AT T DUE TO NODE FAILURE, SEE SLURMCTLD
LOG FOR DETAILS ***`.

## Why is this bad
Not the config's fault: nel 0.2.6's run.sub resumes a NODE_FAIL job through its chain.
The same node failing job after job is the cluster's problem, and each retry costs a
queue wait.

## Fix
Nothing in the config. When one node fails again and again, keep it out:
`execution.sbatch_extra_flags.exclude: NODE` (an sbatch flag), and tell the admins.
"""

from __future__ import annotations

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, TaskFacts
from evalkit.checks.failures.rules._slurm import SOURCE, pattern

ID = "slurm-node-failure"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    node = hit.groups.get("node", "NODE")
    return [
        Change("execution.sbatch_extra_flags.exclude", node, "only if the same node fails again")
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"node {hit.groups.get('node')} failed under job {hit.groups.get('job')}"


RULE = FailureRule(
    id=ID,
    name="node failure",
    doc=__doc__,
    source=SOURCE,
    needle="DUE TO NODE FAILURE",
    pattern=pattern(" DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=70,
    transient=True,
)
