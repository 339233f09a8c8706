"""A collective between the GPUs timed out: NCCL's watchdog took the process down.

## What it does
Finds torch's `Watchdog caught collective operation timeout: WorkNCCL(...) ran for N
milliseconds before timing out.` (torch ProcessGroupNCCL.cpp) in the server logs.

## Why is this bad
One rank stopped answering (a wedged interconnect or GPU, a hung peer): the server dies
mid-run. It often passes on other nodes or a retry, so the same config can succeed; a
repeat on every attempt points at the nodes or a bug, not the config.

## Fix
Resume; if it repeats, exclude the nodes (`execution.sbatch_extra_flags.exclude`) and
report the first rank's error before the timeout.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, Source, TaskFacts

ID = "nccl-timeout"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"an NCCL collective ({hit.groups.get('op', 'a collective')}) timed out and the "
        "watchdog took the server down"
    )


RULE = FailureRule(
    id=ID,
    name="NCCL watchdog timeout",
    doc=__doc__,
    source=Source("torch", ">=2.1", "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"),
    needle="Watchdog caught collective operation timeout",
    pattern=re.compile(
        r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d{1,12}, "
        r"OpType=(?P<op>\w{1,40})"
    ),
    logs=("server-",),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    rank=50,
    transient=True,
    covers=(
        Source("torch", "job log", "https://github.com/vllm-project/vllm/issues/6042"),
        Source("torch", "job log", "https://github.com/vllm-project/vllm/issues/3071"),
        Source("torch", "job log", "https://github.com/hiyouga/LlamaFactory/issues/7396"),
    ),
)
