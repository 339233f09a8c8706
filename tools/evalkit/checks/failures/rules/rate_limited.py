"""An endpoint the client called (the judge, or the Hub) answered 429 Too Many Requests.

## What it does
Finds a 429 answer in the client and server logs: openai-python's
`RateLimitError: Error code: 429 - BODY`, an HTTP client's `'429 Too Many Requests'`,
huggingface_hub 2.4.0's `HTTP Error 429 thrown while requesting ...`.

## Why is this bad
Requests wait and retry, so the job makes little progress and runs into its time limit:
the time limit is the symptom, the rate limit the cause. It passes by itself (the
endpoint's quota refills), so the same config can succeed; a judge's rate limit never
stops a run that is making progress.

## Fix
Resume once the quota has refilled; fewer concurrent requests to that endpoint (the
client's `parallelism`) keep it under the limit.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RESUME, Change, FailureRule, Hit, Source, TaskFacts

ID = "rate-limited"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    # the example configs (Gym's too) set the client's concurrency here
    return [
        Change(
            "evaluation.nemo_evaluator_config.config.params.parallelism",
            "<half the current value>",
            "fewer requests at once to the rate-limited endpoint (a judge's own concurrency "
            "setting, where it has one)",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        "an endpoint the job called answered 429 Too Many Requests: its requests waited and "
        "retried instead of progressing"
    )


RULE = FailureRule(
    id=ID,
    name="rate limited (429)",
    doc=__doc__,
    # `Error code: N - BODY` (openai 1.51.0 _base_client.py:389, the body as a dict) or
    # `Error code: N - MESSAGE` (openai 3.63.0 _base_client.py:485)
    source=Source("openai", "1.51.0", "openai/_base_client.py", 389),
    needle=("429",),
    pattern=re.compile(
        r"Error code: 429\b|HTTP Error 429\b|'429 Too Many Requests'|RateLimitError"
    ),
    logs=("client-", "server-"),
    resubmit=True,
    next=RESUME,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("openai", "3.63.0", "openai/_base_client.py", 485),
        Source("huggingface_hub", "2.4.0", "HTTP Error 429, run against a loopback Hub"),
        Source("httpx", "0.27.2", "httpx/_models.py (Response.raise_for_status)"),
    ),
    rank=78,
    transient=True,
)
