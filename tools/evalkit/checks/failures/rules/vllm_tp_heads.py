"""vLLM refused to start: the tensor parallelism does not divide the attention heads.

## What it does
Finds vLLM's `Total number of attention heads (H) must be divisible by tensor parallel
size (T).` (vllm 0.19.1 config/model.py:1114, 0.26.0 :1231, 0.33.0 :1562) in the server
logs.

## Why is this bad
Each GPU of a tensor-parallel group holds an equal share of the heads; the server exits
at startup, every time with the same config.

## Fix
A `--tensor-parallel-size` that divides H: the largest power of two up to T that does
(more GPUs per replica then come from data parallelism or more instances).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import tp_change

ID = "vllm-tp-heads"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    heads, tp = int(hit.groups["heads"]), int(hit.groups["tp"])
    best = 1
    while best * 2 <= tp and heads % (best * 2) == 0:
        best *= 2
    return [tp_change(facts, best, f"the largest power of two up to {tp} dividing {heads} heads")]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    return (
        f"tensor parallel size {g['tp']} does not divide the model's {g['heads']} attention "
        "heads, so vLLM refused to start"
    )


RULE = FailureRule(
    id=ID,
    name="TP does not divide the heads",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/config/model.py", 1231),
    needle="must be divisible by tensor parallel size",
    pattern=re.compile(
        r"Total number of attention heads \((?P<heads>\d{1,6})\) must be divisible by tensor "
        r"parallel size \((?P<tp>\d{1,6})\)"
    ),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
    covers=(
        Source("vllm", "0.19.1", "vllm/config/model.py", 1114),
        Source("vllm", "0.33.0", "vllm/config/model.py", 1562),
    ),
)
