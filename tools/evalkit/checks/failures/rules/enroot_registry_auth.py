"""The container registry refused the image pull: 401 Unauthorized.

## What it does
Finds enroot's `[ERROR] URL URL returned error code: 401 Unauthorized` (as pyxis prints
enroot's log after `pyxis: failed to import docker image`).

## Why is this bad
The node has no credentials for the registry, or they are wrong or expired: every job of
the same config fails at the import.

## Fix
Put the registry's credentials in `~/.config/enroot/.credentials` on the cluster
(netrc lines: `machine HOST login USER password TOKEN`; nvcr.io takes `$oauthtoken` and
an API key), or import the image once into a `.sqsh` and set `deployment.image` to it.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "enroot-registry-auth"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    host = hit.groups.get("host", "HOST")
    return [
        Change(
            "~/.config/enroot/.credentials (on the cluster)",
            f"machine {host} login USER password TOKEN",
            "enroot reads registry credentials from this netrc file",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"the registry {hit.groups.get('host', '')} refused the image pull (401 Unauthorized)"


RULE = FailureRule(
    id=ID,
    name="registry credentials",
    doc=__doc__,
    # common::curl: `URL ${@: -1} returned error code: ${code} ${status}`
    source=Source("enroot", "dde82ef9", "src/common.sh (common::curl)"),
    needle="returned error code: 401",
    pattern=re.compile(
        r"\[ERROR\] URL https?://(?P<host>[\w.:-]{1,200})/\S{0,400} returned error code: 401"
    ),
    logs=("slurm-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("pyxis/enroot", "job log", "https://github.com/NVIDIA/pyxis/issues/168"),
        Source("enroot", "3.4.1", "https://github.com/NVIDIA/enroot/issues/161"),
    ),
    rank=11,
)
