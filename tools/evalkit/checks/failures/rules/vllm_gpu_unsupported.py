"""vLLM refused to start: the GPU is too old for the dtype or the quantization.

## What it does
Finds vLLM's `Bfloat16 is only supported on GPUs with compute capability of at least
8.0. Your GPU GPU has compute capability C.` and `The quantization method Q is not
supported for the current GPU. Minimum capability: M. Current capability: C.` (vllm
0.26.0 config/vllm.py:686) in the server logs.

## Why is this bad
The partition's GPUs cannot run the checkpoint as configured; every job on the same
partition fails the same way.

## Fix
Run on a partition whose GPUs have the capability (`execution.partition`). Switching a
bf16 model to `--dtype half` starts it but changes its numerics, so its scores are not
comparable with bf16 runs; an FP8 checkpoint needs FP8-capable GPUs.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "vllm-gpu-unsupported"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    need = hit.groups.get("min") or "8.0"
    return [
        Change(
            "execution.partition",
            f"<a partition whose GPUs have compute capability {need} or more>",
            "the checkpoint as configured needs them; --dtype half would start it with other "
            "numerics (scores not comparable)",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    what = f"quantization {g['quant']}" if g.get("quant") else "bfloat16"
    return f"the GPU's compute capability {g.get('cc', '')} cannot run {what}"


RULE = FailureRule(
    id=ID,
    name="GPU too old",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/config/vllm.py", 686),
    needle=("is not supported for the current GPU", "Bfloat16 is only supported on GPUs"),
    pattern=re.compile(
        r"The quantization method (?P<quant>\S{1,60}) is not supported for the current GPU\. "
        r"Minimum capability: (?P<min>\d{1,4})\. Current capability: (?P<cc>\d{1,4})"
    ),
    wordings=(
        re.compile(
            r"Bfloat16 is only supported on GPUs with compute capability of at least "
            r"(?P<min>[\d.]{1,5})\. Your .{0,120}? GPU has compute capability (?P<cc>[\d.]{1,5})"
        ),
    ),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
    covers=(Source("vllm", "0.2 to 0.8", "https://github.com/vllm-project/vllm/issues/1157"),),
)
