"""The Hugging Face Hub has no such repository or dataset (or hides a private one).

## What it does
Finds huggingface_hub's `RepositoryNotFoundError` (`Repository Not Found for url URL.`)
and datasets' `Dataset 'NAME' doesn't exist on the Hub or cannot be accessed.` (datasets
5.2.0 datasets/load.py:1134), both run here against a loopback Hub.

## Why is this bad
A wrong repository id, or a private one the job's token cannot see: every job of the
same config fails the same way.

## Fix
Check the id (`deployment.hf_model_handle`, the task's dataset); for a private
repository pass a token that can read it (`host:HF_TOKEN` in the env vars).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "hf-not-found"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    name = hit.groups.get("name", "the repository")
    return [
        Change(
            "the repository or dataset id",
            f"<the right id for {name}>",
            "or, for a private one, HF_TOKEN: host:HF_TOKEN with a token that reads it",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"the Hub has no {hit.groups.get('name', 'such repository')} the job's token can see"


RULE = FailureRule(
    id=ID,
    name="repository not found",
    doc=__doc__,
    source=Source(
        "huggingface_hub", "2.4.0", "huggingface_hub/utils/_http.py (RepositoryNotFoundError)"
    ),
    needle=("Repository Not Found for url", "doesn't exist on the Hub or cannot be accessed"),
    pattern=re.compile(r"Repository Not Found for url:? (?P<name>\S{1,400}?)\.?(?:\s|$)"),
    wordings=(
        re.compile(
            r"Dataset '(?P<name>[^'\s]{1,200})' doesn't exist on the Hub or cannot be accessed"
        ),
    ),
    logs=("slurm-", "client-", "server-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=11,
    covers=(Source("datasets", "5.2.0", "datasets/load.py", 1134),),
)
