"""The MRCR recipe's Gym bootstrap stopped the job on purpose (exit 3).

## What it does
Finds the bootstrap's own `gym bootstrap: ...` failure lines (the `gym_fail` calls of
the command block in recipes/examples/gym/example_mrcr.yaml): the pin is not a full
SHA, the Gym directory is missing or not a git repository, the pinned commit cannot be
fetched or checked out, HEAD is not the pin, ray cannot be imported, a sub-server
declares no dependencies.

## Why is this bad
The bootstrap refuses to run a Gym other than the pinned one, so the score would not
be comparable; the same image and config stop the same way every time.

## Fix
By the message: a git-backed Gym image with the pinned commit in the task's
`container` (references/gym.md), compute nodes that can fetch from
`install_on_the_fly.url`, or a full 40-hex `install_on_the_fly.commit`.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "mrcr-bootstrap-stop"
_TASK = "evaluation.tasks[].container"
_PIN = "evaluation.tasks[].nemo_evaluator_config.config.params.extra.nemo_gym.install_on_the_fly"

_FIXES = (
    ("40-hex SHA", f"{_PIN}.commit", "the full 40-hex commit (recipes/tasks/gym/mrcr.md)"),
    ("not a git repository", _TASK, "a git-backed Gym image (references/gym.md)"),
    ("does not exist", _TASK, "an image with Gym at /opt/Gym, or EVALKIT_GYM_DIR set"),
    ("cannot fetch", f"{_PIN}.url", "a URL the compute nodes reach, or an image holding the pin"),
    ("cannot check out", _TASK, "an image whose Gym checkout holds the pinned commit"),
    ("not the pinned", _TASK, "an image whose Gym checkout holds the pinned commit"),
    ("ray", _TASK, "an image whose Gym venv imports ray"),
    ("neither requirements.txt", f"{_PIN}.commit", "a commit whose sub-servers declare deps"),
)


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    message = hit.groups.get("message", "")
    for needle, key, value in _FIXES:
        if needle in message:
            return [Change(key, value, "the bootstrap's own message")]
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"the Gym bootstrap stopped the job: {hit.groups.get('message', '').strip()}"


RULE = FailureRule(
    id=ID,
    name="MRCR bootstrap stop",
    doc=__doc__,
    source=Source(
        "this skill", "recipes/examples/gym/example_mrcr.yaml", "the gym_fail calls", 174
    ),
    needle="gym bootstrap: ",
    pattern=re.compile(
        r"gym bootstrap: (?P<message>.{0,300}(?:40-hex SHA|does not exist|not a git repository|"
        r"cannot fetch|cannot check out|not the pinned|cannot import ray|no ray version|"
        r"neither requirements\.txt).{0,300})"
    ),
    logs=("client-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=13,
    ends_job=True,
)
