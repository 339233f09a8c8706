"""run.sub's auto-resume chain stopped: the chain's total walltime is spent.

## What it does
Finds run.sub's `ERROR: Maximum total walltime (MAX) exceeded. Accumulated: HH:MM:SS`
at the top of the follow-up job's `slurm-<job>.log`, and projects the time the rest
needs from the progress made so far.

## Why is this bad
The run is unfinished and no job is queued. Resuming gives it another
`execution.max_walltime` (a manual resume restarts the count), at a cost in GPU-hours;
a run too slow to finish inside one chain needs more throughput, not more resumes.

## Fix
Resume when the projected rest fits in one chain; otherwise raise
`execution.max_walltime` and `execution.walltime`, or the throughput (more replicas:
`deployment.data_parallel_size`, `execution.num_instances`).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, Source, TaskFacts

ID = "chain-walltime-spent"


def seconds(hms: str) -> int | None:
    """HH:MM:SS (hours may pass 24) or D-HH:MM:SS, as run.sub prints and reads them."""
    days = 0
    if "-" in hms:
        head, _, hms = hms.partition("-")
        if not head.isdigit():
            return None
        days = int(head)
    parts = hms.split(":")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        return None
    h, m, s = ([0] * (3 - len(parts)) + [int(p) for p in parts])[-3:]
    return days * 86400 + h * 3600 + m * 60 + s


def rest_seconds(facts: TaskFacts, spent: int) -> int | None:
    """The time the unfinished part takes at the pace so far."""
    if not facts.done or not facts.expected or facts.done >= facts.expected:
        return None
    return int(spent * (facts.expected - facts.done) / facts.done)


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    spent = seconds(hit.groups.get("accumulated", "")) or 0
    limit = seconds(hit.groups.get("max", "")) or spent
    gpus = facts.nodes * (facts.gpus_per_node or 8)
    rest = rest_seconds(facts, spent)
    if rest is None:
        return [
            Change(
                "execution.max_walltime",
                hit.groups.get("max", ""),
                f"unchanged: resume gives another {limit / 3600:.0f} h chain (up to "
                f"{gpus * limit / 3600:,.0f} GPU-hours on {gpus} GPUs); the progress is unknown",
            )
        ]
    hours = rest / 3600
    cost = f"about {hours:.1f} h more, {gpus * hours:,.0f} GPU-hours on {gpus} GPUs"
    if rest <= limit:
        return [Change("execution.max_walltime", hit.groups.get("max", ""), f"enough: {cost}")]
    need = int(-(-rest * 1.2 // 3600))
    return [
        Change("execution.max_walltime", f"{need}:00:00", f"the rest needs {cost}; 1.2x that"),
        Change(
            "deployment.data_parallel_size",
            "twice the current",
            "halves the time instead: the same GPU-hours in half the hours, twice the GPUs",
        ),
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    done = ""
    if facts.done is not None and facts.expected:
        done = f" with {facts.done}/{facts.expected} done"
    return (
        f"the resume chain spent its maximum total walltime ({hit.groups.get('max')}, "
        f"{hit.groups.get('accumulated')} used){done}, so run.sub stopped resuming"
    )


RULE = FailureRule(
    id=ID,
    name="chain walltime spent",
    doc=__doc__,
    source=Source(
        "nemo-evaluator-launcher",
        "0.2.6",
        "nemo_evaluator_launcher/executors/slurm/executor.py",
        1735,
    ),
    needle="Maximum total walltime",
    pattern=re.compile(
        r"^ERROR: Maximum total walltime \((?P<max>[\d:-]{1,20})\) exceeded\. "
        r"Accumulated: (?P<accumulated>[\d:-]{1,20})"
    ),
    logs=("slurm-",),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=30,
    ends_job=True,
)
