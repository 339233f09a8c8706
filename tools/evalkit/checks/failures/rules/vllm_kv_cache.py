"""vLLM refused to start: one request at max_model_len needs more KV cache than is left.

## What it does
Finds vLLM's startup check `To serve at least one request with the model's max seq len
(N), (X GiB KV cache is needed, which is larger than the available KV cache memory (Y
GiB)` in the server logs, and its `No available memory for the cache blocks` (nothing
left for the KV cache at all; vllm 0.26.0 kv_cache_utils.py:758).

## Why is this bad
The server exits before it answers `/health`; run.sub's health wait then reports the
server process died. The same config fails the same way every time.

## Fix
Give the KV cache more room: a larger `--tensor-parallel-size` (the factor is the ratio
needed/available), a higher `deployment.gpu_memory_utilization`, or an FP8 KV cache
(`--kv-cache-dtype fp8`); vLLM's flags are in `deployment.command`. Never a lower
`--max-model-len`: the config's value is what the task's prompts need (an MRCR 1M run
keeps 1.1M), and vLLM's estimate of what fits would cut them.
"""

from __future__ import annotations

import math
import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import _int, sized_tp, tp_change

ID = "vllm-kv-cache-too-small"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    g = hit.groups
    changes = []
    tp = _int(facts.vllm_args.get("--tensor-parallel-size")) or 1
    unit = "GiB"
    if "kvtokens" in g:  # the older wording: tokens that fit instead of GiB
        g, unit = {**g, "needed": g["len"], "available": g["kvtokens"]}, "tokens"
    if "needed" not in g:  # no memory at all for the cache: no ratio to size from
        return [tp_change(facts, tp * 2, f"twice {tp}: the weights spread over twice the GPUs")]
    needed, available = float(g["needed"]), float(g["available"])
    sized = sized_tp(facts, int(g["len"]))
    if sized is not None:  # computed from the checkpoint, not scaled from the ratio
        return [sized]
    if available > 0:
        factor = needed / available
        new_tp = tp * 2 ** max(1, math.ceil(math.log2(factor)))
        why = (
            f"{needed:g} {unit} needed / {available:g} {unit} available = {factor:.2f}x; the KV "
            f"room grows about with the GPUs: {tp} -> {new_tp}"
        )
        changes.append(tp_change(facts, new_tp, why))
    return changes


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    if "needed" not in g:
        return (
            "vLLM had no GPU memory left for the KV cache after the weights, so it refused to start"
        )
    return (
        f"vLLM needs {g['needed']} GiB of KV cache for one request of {g['len']} tokens "
        f"but has {g['available']} GiB, so it refused to start"
    )


RULE = FailureRule(
    id=ID,
    name="KV cache too small for max_model_len",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/v1/core/kv_cache_utils.py", 779),
    needle=(
        "KV cache is needed",
        "No available memory for the cache blocks",
        "tokens that can be stored in KV cache",
    ),
    pattern=re.compile(
        r"max seq len \((?P<len>\d+)\), \((?P<needed>[\d.]+) GiB KV cache is needed, which is "
        r"larger than the available KV cache memory \((?P<available>[\d.]+) GiB\)\."
        r"(?: Based on the available memory, the estimated maximum model length is "
        r"(?P<estimate>\d+)\.)?"
    ),
    wordings=(
        re.compile(r"No available memory for the cache blocks\."),
        # vLLM before the v1 engine (0.2 to 0.8), in tokens rather than GiB
        re.compile(
            r"The model's max seq len \((?P<len>\d{1,9})\) is larger than the maximum number of "
            r"tokens that can be stored in KV cache \((?P<kvtokens>\d{1,12})\)"
        ),
    ),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("vllm", "0.2 to 0.8", "https://github.com/vllm-project/vllm/issues/2418"),
        Source("vllm", "0.19.1", "vllm/v1/core/kv_cache_utils.py", 645),
        Source("vllm", "0.33.0", "vllm/v1/core/kv_cache_planning.py", 78),
        Source("vllm", "0.19.1", "vllm/v1/core/kv_cache_utils.py", 627),
        Source("vllm", "0.26.0", "vllm/v1/core/kv_cache_utils.py", 758),
        Source("vllm", "0.33.0", "vllm/v1/core/kv_cache_planning.py", 58),
    ),
    rank=10,
)
