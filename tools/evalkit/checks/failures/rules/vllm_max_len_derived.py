"""vLLM refused to start: `--max-model-len` is longer than the model's own context.

## What it does
Finds vLLM's `User-specified max_model_len (N) is greater than the derived max_model_len
(KEY=M or model_max_length=... in model's config.json).` (vllm 0.26.0
config/model.py:2269) in the server logs.

## Why is this bad
The checkpoint's config says it was trained for M tokens; vLLM will not serve N > M
unless told to (VLLM_ALLOW_LONG_MAX_MODEL_LEN, with a warning of NaNs or out-of-bounds
positions). The same config fails the same way.

## Fix
Not a shorter `--max-model-len`: N is what the task's prompts need, and a shorter window
cuts them. Serve a model (or a rope-scaling config of it) whose context holds N, or run
a variant of the benchmark whose prompts fit in M.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "vllm-max-model-len-over-model"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    g = hit.groups
    return [
        Change(
            "deployment.checkpoint_path",
            f"<a model whose context holds {g['asked']} tokens>",
            f"this one derives {g['derived']} ({g['key']}); or a benchmark variant whose prompts "
            f"fit in {g['derived']}",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    return (
        f"--max-model-len {g['asked']} is longer than the model's own context "
        f"({g['key']}={g['derived']}), so vLLM refused to start"
    )


RULE = FailureRule(
    id=ID,
    name="max-model-len over the model's context",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/config/model.py", 2269),
    needle="is greater than the derived max_model_len",
    pattern=re.compile(
        r"User-specified max_model_len \((?P<asked>\d{1,9})\) is greater than the derived "
        r"max_model_len \((?P<key>\w{1,80})=(?P<derived>\d{1,9})"
    ),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
)
