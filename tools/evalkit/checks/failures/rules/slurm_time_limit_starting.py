"""The job reached its time limit while the server was still starting.

## What it does
Finds slurmstepd's `... CANCELLED AT T DUE TO TIME LIMIT ***` in a job whose
`slurm-<job>.log` began run.sub's health wait (`Waiting for server on ...`) and never
logged `server ready on ...`.

## Why is this bad
The job spent its whole walltime loading the server and wrote nothing; the resume chain
starts the next job the same way, so every job of the chain ends the same, each one a
full walltime of GPUs. This is the resubmission loop that drains a budget.

## Fix
Raise `execution.walltime` above the server's load time (the shard progress in
`logs/server-*.log` gives it), or make the load faster (a local copy of the checkpoint
on fast storage), before resuming.
"""

from __future__ import annotations

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, TaskFacts
from evalkit.checks.failures.rules._slurm import SOURCE, pattern
from evalkit.checks.failures.rules.health_check_timeout import projected_load

ID = "time-limit-while-starting"


def starting(hit: Hit, facts: TaskFacts) -> bool:
    return hit.job in facts.waiting_jobs and hit.job not in facts.ready_jobs


def _hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:00"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    wall = facts.walltime_seconds or 3600
    load = projected_load(facts, wall)
    target = max(wall * 2, (load or 0) * 2)
    target = int(-(-target // 3600) * 3600)  # whole hours
    gpus = facts.nodes * (facts.gpus_per_node or 8)
    why = f"twice the {_hms(wall)} every job spent starting"
    if load:
        why = f"the shard progress projects a {load}s load; twice that, in whole hours"
    why += f"; each job then costs up to {gpus * target / 3600:.0f} GPU-hours ({gpus} GPUs)"
    return [Change("execution.walltime", _hms(target), why)]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"job {hit.groups.get('job')} reached its time limit before the server became "
        "healthy: it served nothing"
    )


RULE = FailureRule(
    id=ID,
    name="time limit before the server was up",
    doc=__doc__,
    source=SOURCE,
    needle="DUE TO TIME LIMIT",
    pattern=pattern(" DUE TO TIME LIMIT"),
    logs=("slurm-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=35,
    ends_job=True,
    chain_continues=True,
    applies=starting,
)
