"""The server answered 404 for the model name the client asked for.

## What it does
Finds vLLM's `The model `NAME` does not exist.` (a NotFoundError, HTTP 404) in the
client or server logs and compares NAME with the `--served-model-name` the server
started with (vLLM logs it among its non-default args).

## Why is this bad
Every request fails, so the run scores nothing (or zero); retrying the same config asks
for the same wrong name.

## Fix
Make the client's model name the served one: with a nel deployment the launcher sets
`target.api_endpoint.model_id` from `deployment.served_model_name`, so change that key;
a Gym task's `policy_model_name` (and a judge's model name) must match too.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "model-name-404"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    asked = hit.groups.get("model", "")
    served = facts.served_model_name
    if served and served != asked:
        key = "target.api_endpoint.model_id (Gym: policy_model_name)"
        return [
            Change(key, served, f"the server serves {served!r}; the client asked for {asked!r}")
        ]
    return [
        Change(
            "deployment.served_model_name",
            asked or "<the client's model name>",
            "the name the client sends; no --served-model-name found in the server log",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    served = f"; the server serves {facts.served_model_name!r}" if facts.served_model_name else ""
    asked = hit.groups.get("model", "")
    return f"the client asked for model {asked!r}, which the server does not serve{served}"


RULE = FailureRule(
    id=ID,
    name="model name 404",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/entrypoints/serve/engine/serving.py", 64),
    needle="does not exist",
    pattern=re.compile(r"The model `(?P<model>[^`]{0,200})` does not exist"),
    logs=("client-", "server-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    live=True,
    rank=20,
    # A 404 beside answered requests, or in a run that has written rollouts, is one
    # caller's wrong name (a judge): the run is making progress, so it is never stopped.
    applies=lambda hit, facts: (
        facts.ok_requests == 0 and not facts.rollouts_written and not (facts.done or 0)
    ),
)
