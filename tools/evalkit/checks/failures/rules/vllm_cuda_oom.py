"""vLLM ran out of GPU memory: while loading the weights, or after (profiling, CUDA
graphs, the first batches).

## What it does
Finds PyTorch's `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...` in
the server logs, and tells loading from after by vLLM's `Model loading took ...` line
in the same log.

## Why is this bad
The server dies. While loading, the weights do not fit on the GPUs of one model
replica: the same config fails the same way. After loading, the memory vLLM keeps back
for activations was too small for the batch it scheduled.

## Fix
While loading: more GPUs per replica (`--tensor-parallel-size`, or pipeline parallelism
across nodes) or a smaller checkpoint (a quantized one). After loading: lower
`deployment.gpu_memory_utilization` (e.g. 0.90) or `--max-num-seqs` /
`--max-num-batched-tokens`. vLLM's flags are in `deployment.command`.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import doubled_tp, flag_change

ID = "vllm-cuda-oom"


def loading(hit: Hit, facts: TaskFacts) -> bool:
    return hit.file not in facts.loaded_files


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    if loading(hit, facts):
        return [doubled_tp(facts)]
    util = facts.vllm_args.get("--gpu-memory-utilization") or "0.95"
    try:
        lower = f"{max(0.5, float(util) - 0.05):.2f}"
    except ValueError:
        lower = "0.90"
    return [
        Change(
            "deployment.gpu_memory_utilization",
            lower,
            f"from {util}: leaves vLLM more room for activations beside the KV cache",
        ),
        flag_change("--max-num-seqs", "<half the current value>", "fewer requests in a batch"),
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    when = "while loading the weights" if loading(hit, facts) else "after loading the weights"
    return f"vLLM ran out of GPU memory {when}"


RULE = FailureRule(
    id=ID,
    name="CUDA out of memory",
    doc=__doc__,
    source=Source("torch", "2.11.0 (vLLM 0.26.0 pins it)", "c10/cuda/CUDACachingAllocator.cpp"),
    needle="CUDA out of memory",
    pattern=re.compile(r"CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ [KMG]iB)"),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=15,
)
