"""A checkpoint file is truncated or corrupt: safetensors cannot read its header.

## What it does
Finds safetensors' `SafetensorError: Error while deserializing header: REASON`
(`MetadataIncompleteBuffer`, `HeaderTooLarge`, `incomplete metadata, file not fully
covered`) in the server logs, raised while vLLM loads the weights.

## Why is this bad
A partial download or copy, or a broken upload: every job that reads the same files
fails the same way at the weight load.

## Fix
Copy or download the checkpoint again and check each `*.safetensors` file's size (or
sha256) against its source before relaunching; `deployment.checkpoint_path` must name
the complete copy.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "checkpoint-corrupt"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change(
            "deployment.checkpoint_path",
            "<a complete copy of the checkpoint>",
            "re-copy or re-download it and compare each *.safetensors file's size or sha256 "
            "with the source",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        "a checkpoint file is truncated or corrupt: safetensors could not read its header "
        f"({hit.groups.get('reason', '')})"
    )


RULE = FailureRule(
    id=ID,
    name="checkpoint file corrupt",
    doc=__doc__,
    source=Source("safetensors", "job log", "https://github.com/QwenLM/Qwen3-VL/issues/264"),
    needle="Error while deserializing header",
    pattern=re.compile(r"SafetensorError: Error while deserializing header: (?P<reason>.{1,120})"),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=12,
    covers=(Source("safetensors", "job log", "https://github.com/datalab-to/marker/issues/970"),),
)
