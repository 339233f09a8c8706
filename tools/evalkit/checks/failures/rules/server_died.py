"""The server process exited while run.sub waited for it to become healthy.

## What it does
Finds run.sub's `server process PID died` in `slurm-<job>.log` (nel 0.2.6 checks each
server's srun step between health probes).

## Why is this bad
The job exits 1 before any request. The server's own log says why; a more specific
signature (KV cache, CUDA out of memory, an invalid flag, a gated checkpoint) names it
when it matched. Without one, the cause is in the last error lines of
`logs/server-*.log`.

## Fix
Read the last error in `logs/server-*.log` and fix that; resubmitting unchanged fails
the same way when the cause is in the config.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "server-died"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        "the vLLM server exited before it became healthy; no more specific signature "
        "matched its log: read the last error in logs/server-*.log"
    )


RULE = FailureRule(
    id=ID,
    name="server died at startup",
    doc=__doc__,
    source=Source(
        "nemo-evaluator-launcher",
        "0.2.6",
        "nemo_evaluator_launcher/executors/slurm/executor.py",
        2242,
    ),
    needle="process",
    pattern=re.compile(r"^(?P<service>server|[\w.-]{1,80} Proxy) process (?P<pid>\d+) died$"),
    logs=("slurm-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=60,
    ends_job=True,
)
