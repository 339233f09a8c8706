"""A file system the job writes to is full (`No space left on device`).

## What it does
Finds `No space left on device` in the job's logs: enroot's squashfs or tar output while
pyxis imports the image (`Write failed because No space left on device`, `Cannot write:
No space left on device`), a hook's write at container start, or any other write.

## Why is this bad
Not the image or its tag: the import (or the run) needs room that the node's enroot
cache, data or temporary directory, or the output directory, does not have. The same
config on the same nodes fails the same way until space is freed.

## Fix
Free space where the job writes, or import the image once into a `.sqsh` on shared
storage (`enroot import -o FILE docker://IMAGE`) and set `deployment.image` to that file;
enroot's own paths (ENROOT_CACHE_PATH, ENROOT_DATA_PATH, ENROOT_TEMP_PATH) are the
cluster's: ask its admins when they are the full ones.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "disk-full"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return [
        Change(
            "deployment.image",
            "<a .sqsh on shared storage: enroot import -o FILE docker://IMAGE>",
            "the image is then read, not imported, on the node; free space first if the "
            "full file system is the output directory",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "a file system the job writes to is full (No space left on device)"


RULE = FailureRule(
    id=ID,
    name="disk full",
    doc=__doc__,
    # strerror(ENOSPC), printed by mksquashfs, tar or a hook inside enroot's log
    source=Source("glibc", "any", "strerror(ENOSPC)"),
    needle="No space left on device",
    pattern=re.compile(r"No space left on device"),
    logs=("slurm-", "server-", "client-", "proxy-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("pyxis/enroot", "job log", "https://github.com/NVIDIA/pyxis/issues/53"),
        Source("enroot", "job log", "https://github.com/NVIDIA/enroot/issues/187"),
        Source("enroot", "job log", "https://github.com/NVIDIA/enroot/issues/39"),
    ),
    rank=11,
    # In the job's own log it is the import or the start failing; in a server or client
    # log beside answered requests it may be a cache write the run survived: not the end.
    applies=lambda hit, facts: (
        hit.file.startswith("slurm-") or (facts.ok_requests == 0 and not facts.rollouts_written)
    ),
)
