"""A port the server needs on the node is taken (`address already in use`).

## What it does
Finds `[Errno 98] ... address already in use` (uvicorn's bind error as vLLM logs it) and
torch's `The server socket has failed to listen on any local network address ...
EADDRINUSE` (its rendezvous store) in the server logs.

## Why is this bad
Another process on the node holds the port: a job sharing the node, or a server left by
an earlier job. The server exits at startup; on another node, or once the old process is
gone, the same config can start.

## Fix
Ask for whole nodes (`execution.sbatch_extra_flags.exclusive: true`, nel's default), or
another port (`deployment.port`).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "port-in-use"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change("execution.sbatch_extra_flags.exclusive", "true", "whole nodes: no neighbour"),
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "a port the server binds on the node was already in use, so it exited at startup"


RULE = FailureRule(
    id=ID,
    name="port in use",
    doc=__doc__,
    source=Source("uvicorn", "any", "uvicorn/server.py (bind error)", guess=True),
    needle=("address already in use", "EADDRINUSE"),
    pattern=re.compile(r"\[Errno 98\] .{0,200}address already in use|EADDRINUSE"),
    logs=("server-",),
    resubmit=True,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=17,
    transient=True,
    covers=(
        Source("vllm", "0.7.3", "https://github.com/vllm-project/vllm/issues/7514"),
        Source("torch", "job log", "https://github.com/vllm-project/vllm/issues/11617"),
    ),
)
