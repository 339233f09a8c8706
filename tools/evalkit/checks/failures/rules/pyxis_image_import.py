"""pyxis could not import the container image (enroot import failed).

## What it does
Finds pyxis's `pyxis: failed to import docker image` in the job's logs and the enroot
log lines pyxis prints after it (`[ERROR] URL ... returned error code: 401
Unauthorized`, `404 Not Found`, `429 Too Many Requests`, a full disk).

## Why is this bad
The step never starts. A missing tag or missing credentials fail the same way every
time; a registry rate limit (429) or a full cache on one node may pass on a retry.

## Fix
Use an image the compute nodes can pull: an existing tag in `deployment.image` (or the
task's `container`), registry credentials in `~/.config/enroot/.credentials` on the
cluster, or a pre-imported `.sqsh` file on shared storage as the image path.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "pyxis-image-import"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change(
            "deployment.image",
            "<an existing tag, or a .sqsh path on shared storage>",
            "the image (or the task's container) the step could not import; check the "
            "enroot lines after the quoted one for 401/404/429",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "pyxis could not import a container image, so the step never started"


RULE = FailureRule(
    id=ID,
    name="image import failed",
    doc=__doc__,
    source=Source("NVIDIA/pyxis", "0.x", "pyxis_slurmstepd.c (enroot import)"),
    needle="pyxis: failed to import docker image",
    pattern=re.compile(r"pyxis: failed to import docker image"),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=12,
    ends_job=True,
)
