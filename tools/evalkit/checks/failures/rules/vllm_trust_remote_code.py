"""vLLM could not load the tokenizer: it is custom code the server was not allowed to run.

## What it does
Finds vLLM's `Failed to load the tokenizer. If the tokenizer is a custom tokenizer not
yet available in the HuggingFace transformers library, consider setting
`trust_remote_code=True` ...` (vllm 0.26.0 tokenizers/hf.py:226) in the server logs.

## Why is this bad
The checkpoint ships its tokenizer (or model) as Python code; without
`--trust-remote-code` vLLM will not import it and exits at startup, every time.

## Fix
Add `--trust-remote-code` to the `vllm serve` line once you trust the checkpoint's code;
if the message's other reason applies (a newer transformers), use an image with it.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import flag_change

ID = "vllm-trust-remote-code"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [flag_change("--trust-remote-code", "", "only for a checkpoint whose code you trust")]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "the checkpoint's tokenizer is custom code and the server was not allowed to run it"


RULE = FailureRule(
    id=ID,
    name="custom code without --trust-remote-code",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/tokenizers/hf.py", 226),
    needle="consider setting `trust_remote_code=True`",
    pattern=re.compile(r"Failed to load the tokenizer\. If the tokenizer is a custom tokenizer"),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
)
