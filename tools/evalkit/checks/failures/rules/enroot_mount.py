"""enroot could not mount a host path into the container.

## What it does
Finds `enroot-mount: failed to mount: SRC at DST: REASON` in the job's logs (pyxis
prints enroot's log when the container does not start).

## Why is this bad
The step never starts. A host path that does not exist on the compute node (a typo, a
directory never created, a login-node-only path) fails the same way every time.

## Fix
Make the source exist on every compute node, or correct it in `execution.mounts`
(`deployment`, `evaluation`) or `deployment.checkpoint_path`; `mount_home: false` when
the home directory is the path that fails.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "enroot-mount"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    src = hit.groups.get("src", "SRC")
    return [
        Change(
            "execution.mounts (or deployment.checkpoint_path)",
            f"a path that exists on the compute nodes instead of {src}",
            hit.groups.get("reason", "").strip(),
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"enroot could not mount {hit.groups.get('src')}: {hit.groups.get('reason', '').strip()}"


RULE = FailureRule(
    id=ID,
    name="container mount failed",
    doc=__doc__,
    source=Source(
        "NVIDIA/enroot",
        "3.x",
        "enroot-mount (the line's shape as pyxis prints it in job logs)",
        guess=True,
    ),
    needle="enroot-mount: failed to mount",
    pattern=re.compile(
        r"enroot-mount: failed to mount: (?P<src>\S{1,400}) at (?P<dst>\S{1,400}): ?"
        r"(?P<reason>.{0,200})"
    ),
    logs=("slurm-", "client-", "server-", "proxy-"),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=12,
    ends_job=True,
)
