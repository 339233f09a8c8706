"""run.sub's wait for the server's /health gave up before the server was ready.

## What it does
Finds run.sub's `Health check timeout after Ns` in `slurm-<job>.log` and reads the
server logs for how far checkpoint loading had come (`Loading safetensors checkpoint
shards: P% Completed | n/total`).

## Why is this bad
The job exits 1 while the server may still be loading: a large checkpoint on a slow
file system takes longer than the wait. The same config fails again when the load time
is the cause; a server that never logged a shard line hangs elsewhere.

## Fix
Raise `execution.endpoint_readiness_timeout` (seconds; without it nel waits for the
walltime) to the load time the shard progress projects, with room; keep it below
`execution.walltime`.
"""

from __future__ import annotations

import math
import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "health-check-timeout"


def projected_load(facts: TaskFacts, waited: int) -> int | None:
    """Seconds the whole checkpoint takes to load at the rate the shard lines show."""
    if not facts.shards or facts.shards[0] <= 0 or facts.shards[0] >= facts.shards[1]:
        return None
    done, total = facts.shards
    return math.ceil(waited * total / done)


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    waited = int(hit.groups.get("seconds", "0"))
    load = projected_load(facts, waited)
    if load is not None:
        value = int(math.ceil(load * 1.5 / 600.0) * 600)
        why = (
            f"shards {facts.shards[0]}/{facts.shards[1]} loaded in {waited}s: the whole "
            f"checkpoint takes about {load}s; 1.5x that, rounded up to 10 minutes"
        )
    else:
        value = waited * 2
        why = f"twice the {waited}s waited (no shard progress line to project from)"
    changes = [Change("execution.endpoint_readiness_timeout", str(value), why)]
    if facts.walltime_seconds and value >= facts.walltime_seconds:
        hours = -(-(value + 3600) // 3600)
        gpus = facts.nodes * (facts.gpus_per_node or 8)
        changes.append(
            Change(
                "execution.walltime",
                f"{hours:02d}:00:00",
                f"the wait plus an hour of serving (the chain resumes the rest); up to "
                f"{gpus * hours} GPU-hours a job on {gpus} GPUs",
                joint=True,
            )
        )
    return changes


def _cause(hit: Hit, facts: TaskFacts) -> str:
    shards = ""
    if facts.shards:
        shards = f" (checkpoint shards {facts.shards[0]}/{facts.shards[1]} loaded)"
    return f"run.sub stopped waiting for the server after {hit.groups.get('seconds')}s{shards}"


RULE = FailureRule(
    id=ID,
    name="health check gave up",
    doc=__doc__,
    source=Source(
        "nemo-evaluator-launcher",
        "0.2.6",
        "nemo_evaluator_launcher/executors/slurm/executor.py",
        2255,
    ),
    needle="Health check timeout after",
    pattern=re.compile(r"^Health check timeout after (?P<seconds>\d+)s"),
    logs=("slurm-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=40,
    ends_job=True,
)
