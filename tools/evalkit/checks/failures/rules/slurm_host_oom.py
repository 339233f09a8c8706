"""The job ran out of host memory: Slurm's cgroup killed a process.

## What it does
Finds slurmstepd's cgroup report, `Detected N oom-kill event(s) in StepId=... Some of
your processes may have been killed by the cgroup out-of-memory handler.` (Slurm 21.08
to 23.02) or `Detected N oom_kill event(s) in StepId=... Some of the step tasks have
been OOM Killed.` (later), and the memory-limit kill of jobacct_gather, `Job N exceeded
memory limit (X > Y), being killed` / `Exceeded job memory limit` (sacct says
OUT_OF_MEMORY). The job then shows slurmstepd's plain CANCELLED line: this signature
outranks it, the kill was Slurm's, not a user's. The swap warning `Exceeded step memory
limit at some point` is not a kill and is not matched.

## Why is this bad
Host RAM, not GPU memory: loading a large checkpoint, or a client holding every
rollout, passes the job's memory limit. The same config fails the same way on the
same nodes.

## Fix
Ask for the node's whole memory (`execution.sbatch_extra_flags.mem: "0"`) or nodes
with more; fewer client workers (`parallelism`/`num_concurrent`) for a client-side
kill.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "slurm-host-oom"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change("execution.sbatch_extra_flags.mem", "0", "sbatch --mem=0: all of each node's memory")
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    step = hit.groups.get("step", "")
    return f"Slurm's cgroup killed a process for host memory{f' in {step}' if step else ''}"


RULE = FailureRule(
    id=ID,
    name="host out of memory",
    doc=__doc__,
    source=Source("slurm", ">=22.05", "src/plugins/task/cgroup/task_cgroup_memory.c"),
    needle=("oom-kill event", "oom_kill event", "exceeded memory limit (", "Exceeded job memory"),
    pattern=re.compile(
        r"Detected \d+ oom[-_]kill events?(?:\(s\))? in "
        r"(?P<step>(?:step )?\S{1,80}?)(?: cgroup)?\. Some of "
    ),
    wordings=(
        re.compile(r"(?P<step>Job \d{1,20}|Step \S{1,40}) exceeded memory limit \(\d+ > \d+\)"),
        re.compile(r"Exceeded job memory limit(?! at some point)"),
    ),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("slurm", "job log", "https://github.com/hafs-community/HAFS/issues/101"),
        Source("slurm", "job log", "https://github.com/nextflow-io/nextflow/issues/5932"),
        Source("slurm", "job log", "https://github.com/nathanweeks/exonerate/issues/31"),
        Source("slurm", "any", "src/plugins/jobacct_gather/common/common_jag.c", guess=True),
    ),
    rank=14,
    ends_job=True,
)
