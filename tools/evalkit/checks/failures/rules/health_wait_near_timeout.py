"""Early: the server is still not healthy and run.sub's health wait is about to give up.

## What it does
On a task still starting: the current job's `slurm-<job>.log` began the health wait
(`Waiting for server on ...`) and has no `server ready on ...`, and either three
quarters of the wait (run.sub's `TIMEOUT=`) have passed, or the checkpoint-shard
progress in the server log projects a load longer than the wait.

## Why is this bad
The job will exit 1 when the wait runs out, after a full load's worth of GPU time, and
the next job of the same config does the same.

## Fix
Raise `execution.endpoint_readiness_timeout` to the projected load time with room, and
relaunch; or let it run when the projection fits.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules.health_check_timeout import projected_load

ID = "health-wait-near-timeout"
SHARE = 0.75


def _projected(facts: TaskFacts) -> int | None:
    return projected_load(facts, facts.live_seconds) if facts.live_seconds else None


def near(hit: Hit, facts: TaskFacts) -> bool:
    if facts.live_seconds is None or not facts.readiness_timeout:
        return False
    if hit.job in facts.ready_jobs or hit.job != (facts.jobs[-1] if facts.jobs else hit.job):
        return False
    load = _projected(facts)
    late = facts.live_seconds >= SHARE * facts.readiness_timeout
    return late or (load is not None and load > facts.readiness_timeout)


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    load = _projected(facts)
    if load is None:
        return []
    value = int(-(-load * 1.5 // 600) * 600)
    return [
        Change(
            "execution.endpoint_readiness_timeout",
            str(value),
            f"the shards project a {load}s load; the wait is {facts.readiness_timeout}s",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    load = _projected(facts)
    shards = f", shards {facts.shards[0]}/{facts.shards[1]}" if facts.shards else ""
    projection = f"; the load projects to {load}s" if load else ""
    return (
        f"the server is not healthy after {facts.live_seconds}s of a "
        f"{facts.readiness_timeout}s wait{shards}{projection}"
    )


RULE = FailureRule(
    id=ID,
    name="health wait about to give up",
    doc=__doc__,
    source=Source(
        "nemo-evaluator-launcher",
        "0.2.6",
        "nemo_evaluator_launcher/executors/slurm/executor.py",
        2252,
    ),
    needle="Waiting for server on ",
    pattern=re.compile(r"^Waiting for server on \S{1,100}"),
    logs=("slurm-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    live=True,
    early_only=True,
    rank=45,
    applies=near,
)
