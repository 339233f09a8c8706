"""A Hugging Face download was needed but the job runs offline.

## What it does
Finds huggingface_hub's offline errors: `Cannot find the requested files in the disk
cache and outgoing traffic has been disabled` and `Cannot find an appropriate cached
snapshot folder ... outgoing traffic has been disabled` (LocalEntryNotFoundError);
huggingface_hub 2.4.0's `OfflineModeIsEnabled: Cannot reach URL: offline mode is
enabled`; and datasets 5.2.0's `ConnectionError: Couldn't reach 'NAME' on the Hub
(OfflineModeIsEnabled)` (datasets/load.py:1125), a dataset the job needed; and
transformers' `We couldn't connect to 'https://huggingface.co' to load the files, and
couldn't find them in the cached files.` (vLLM 0.33.0 loading a config, run here
without network).

## Why is this bad
`HF_HUB_OFFLINE=1` (or no network on the compute nodes) and a cache without the files:
the same config fails the same way every time.

## Fix
Download the files into the cache the job mounts before launching
(`deployment.cache_path`, or `HF_HOME` in `deployment.env_vars`), or point
`deployment.checkpoint_path` at a local copy; unset HF_HUB_OFFLINE only where the nodes
can reach the Hub.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "hf-offline"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    dataset = hit.groups.get("dataset")
    if dataset:
        return [
            Change(
                "evaluation.env_vars.HF_HOME",
                "lit:<a shared directory holding the Hub cache>",
                f"fill it first where the Hub is reachable: HF_HOME=<that directory> python -c "
                f"\"import datasets; datasets.load_dataset('{dataset}')\"; with "
                "HF_DATASETS_OFFLINE=1 beside HF_HUB_OFFLINE=1 the job then reads it offline",
            )
        ]
    return [
        Change(
            "deployment.checkpoint_path",
            "<a local copy on shared storage>",
            "or pre-fill the mounted HF cache (deployment.cache_path) with the files",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "a Hugging Face download was needed, but the job runs offline and the cache lacks it"


RULE = FailureRule(
    id=ID,
    name="offline without the files",
    doc=__doc__,
    source=Source("huggingface_hub", "1.33.0", "huggingface_hub/file_download.py", 1945),
    needle=(
        "couldn't connect to 'https://huggingface.co'",
        "outgoing traffic has been disabled",
        "offline mode is enabled",
        "(OfflineModeIsEnabled)",
    ),
    pattern=re.compile(r"outgoing traffic has been disabled|offline mode is enabled"),
    wordings=(
        # transformers' OSError (vLLM 0.33.0's config load, run here without network)
        re.compile(
            r"couldn't connect to 'https://huggingface\.co' to load the files, and couldn't find "
            r"them in the cached files"
        ),
        re.compile(
            r"Couldn't reach '(?P<dataset>[^'\s]{1,200})' on the Hub \(OfflineModeIsEnabled\)"
        ),
    ),
    logs=("slurm-", "client-", "server-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("huggingface_hub", "2.4.0", "hf_hub_download and snapshot_download, run offline"),
        Source("datasets", "5.2.0", "datasets/load.py", 1125),
    ),
    rank=11,
)
