"""A request was longer than the server's context: prompt plus output over max_model_len.

## What it does
Finds vLLM's `This model's maximum context length is N tokens. However, you requested M
output tokens and your prompt contains K input tokens, for a total of T tokens.` (vllm
0.26.0 renderers/params.py:442) in the client or server logs.

## Why is this bad
The server answers 400 for that request; a harness that stops on it ends the run, and
the same prompts fail the same way. Among answered requests it is one prompt's problem,
not why the run ended, and is not named.

## Fix
A `--max-model-len` of at least T (check the KV cache still holds it: `evalkit size`),
or fewer output tokens (the task's max_new_tokens) when the benchmark allows. Never a
shorter window.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import flag_change, size_command

ID = "context-too-long"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    total = hit.groups.get("total")
    if not total:
        return []
    return [
        flag_change(
            "--max-model-len",
            total,
            f"the longest request seen needs {total} tokens; check: {size_command(facts)}",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    g = hit.groups
    total = f" but a request needed {g['total']}" if g.get("total") else ""
    return f"the server's context is {g['limit']} tokens{total}"


RULE = FailureRule(
    id=ID,
    name="request over the context",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/renderers/params.py", 442),
    needle="maximum context length is ",
    pattern=re.compile(
        r"maximum context length is (?P<limit>\d{1,9}) tokens\. However, you requested "
        r"\d{1,9} output tokens and your prompt contains (?:at least )?\d{1,9} input tokens, "
        r"for a total of (?:at least )?(?P<total>\d{1,9}) tokens"
    ),
    wordings=(
        re.compile(
            r"maximum context length is (?P<limit>\d{1,9}) tokens\. However, you requested "
            r"(?P<total>\d{1,9}) tokens"
        ),
    ),
    logs=("client-", "server-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=22,
    # One prompt over the context among answered requests is that prompt's problem (the
    # harness goes on); it ends the run only when nothing was answered.
    applies=lambda hit, facts: (
        facts.ok_requests == 0 and not facts.rollouts_written and not (facts.done or 0)
    ),
)
