"""The Hugging Face Hub refused the download: the repository is gated.

## What it does
Finds huggingface_hub's `Cannot access gated repo for url URL.` (GatedRepoError; the
same in huggingface_hub 2.4.0) and datasets' `Dataset 'NAME' is a gated dataset on the
Hub. You must be authenticated to access it.` (datasets 5.2.0 datasets/load.py:1132) in
the job's logs.

## Why is this bad
The checkpoint (or a tokenizer, or a dataset) is not downloaded; the job fails the same
way until the token in the job has been granted access.

## Fix
Request access on the repository page with the account whose token the job uses, and
pass that token: `deployment.env_vars.HF_TOKEN: host:HF_TOKEN` (and the same for the
evaluation when the harness downloads), or point `deployment.checkpoint_path` at a local
copy.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "hf-gated-repo"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change(
            "deployment.env_vars.HF_TOKEN",
            "host:HF_TOKEN",
            f"a token whose account has been granted access to {hit.groups.get('url', 'the repo')}",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"the Hub refused a gated repository ({hit.groups.get('url')}) to the job's token"


RULE = FailureRule(
    id=ID,
    name="gated repository",
    doc=__doc__,
    source=Source("huggingface_hub", "1.33.0", "huggingface_hub/utils/_http.py", 860),
    needle=("Cannot access gated repo", "is a gated dataset on the Hub"),
    pattern=re.compile(r"Cannot access gated repo for url (?P<url>\S{1,400}?)\.?(?:\s|$)"),
    wordings=(re.compile(r"Dataset '(?P<url>[^'\s]{1,200})' is a gated dataset on the Hub"),),
    logs=("slurm-", "client-", "server-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("huggingface_hub", "2.4.0", "hf_hub_download, run against a loopback Hub"),
        Source("datasets", "5.2.0", "datasets/load.py", 1132),
    ),
    rank=11,
)
