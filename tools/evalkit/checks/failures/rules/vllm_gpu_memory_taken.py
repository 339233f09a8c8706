"""vLLM refused to start: another process already holds part of the GPU's memory.

## What it does
Finds vLLM's `Free memory on device DEV (F/T GiB) on startup is less than desired GPU
memory utilization (U, R GiB).` (vllm 0.26.0 v1/worker/utils.py:435) and vLLM 0.33's
`... is less than the engine's budget after excluding external process's weights`
(utils.py:742) in the server logs.

## Why is this bad
vLLM claims a fixed share of each GPU's whole memory; a process left on the node (a
previous job, another user on a shared node) holds what it needs. Another node may be
free, so a resubmission can succeed; the same node fails the same way.

## Fix
Ask for whole nodes (`execution.sbatch_extra_flags.exclusive: true`, nel's default) or
lower `--gpu-memory-utilization` to what is free.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import flag_change

ID = "vllm-gpu-memory-taken"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    g = hit.groups
    free, total = float(g["free"]), float(g["total"])
    changes = [
        Change("execution.sbatch_extra_flags.exclusive", "true", "whole nodes: no neighbour")
    ]
    if total > 0:
        share = int(free / total * 100) / 100 - 0.02
        if share > 0.1:
            changes.append(
                flag_change(
                    "--gpu-memory-utilization",
                    f"{share:.2f}",
                    f"{free:g} of {total:g} GiB were free; less room for the KV cache",
                )
            )
    return changes


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    return (
        f"only {g['free']} of {g['total']} GiB were free on {g['device']} at startup: another "
        "process holds the GPU"
    )


RULE = FailureRule(
    id=ID,
    name="GPU memory taken",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/v1/worker/utils.py", 435),
    needle="Free memory on device",
    pattern=re.compile(
        r"Free memory on device (?P<device>\S{1,40}) "
        r"\((?P<free>[\d.]{1,12})/(?P<total>[\d.]{1,12}) GiB\) on startup is less than"
    ),
    logs=("server-",),
    resubmit=True,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=16,
    covers=(Source("vllm", "0.33.0", "vllm/v1/worker/utils.py", 742),),
)
