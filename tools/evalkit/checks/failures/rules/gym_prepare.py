"""NeMo Gym's data preparation failed before any rollout.

## What it does
Finds the first error line (`SomethingError: ...`) after the MRCR bootstrap's
`gym bootstrap: ng_prepare_benchmark ...` line in the client log, when no rollout was
written.

## Why is this bad
`ng_prepare_benchmark` downloads and converts the benchmark data (a Hugging Face
dataset, needing HF_TOKEN for a gated one); when it fails, `set -e` ends the job before
the rollouts start. A missing token, a wrong variant file or no network fails the same
way every time.

## Fix
By the quoted error: the variant file name in `data_prep_params`
(`benchmarks/mrcr/<file>`), an HF_TOKEN that reaches the client container
(`evaluation.env_vars.HF_TOKEN: host:HF_TOKEN`), or a pre-filled HF cache for an
offline cluster.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts

ID = "gym-prepare-failed"


def after_prepare(hit: Hit, facts: TaskFacts) -> bool:
    at = facts.prepare_lines.get(hit.file)
    return at is not None and hit.line > at and not facts.rollouts_written


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    text = hit.text
    if "401" in text or "403" in text or "gated" in text.lower() or "token" in text.lower():
        return [Change("evaluation.env_vars.HF_TOKEN", "host:HF_TOKEN", "the dataset download")]
    if "No such file" in text or "not found" in text.lower():
        return [
            Change(
                "data_prep_params (the benchmarks/mrcr/<file> variant)",
                "a variant file the pinned Gym ships",
                "recipes/tasks/gym/mrcr.md lists them",
            )
        ]
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return "NeMo Gym's ng_prepare_benchmark failed before any rollout"


RULE = FailureRule(
    id=ID,
    name="Gym prepare failed",
    doc=__doc__,
    source=Source(
        "this skill", "recipes/examples/gym/example_mrcr.yaml", "the ng_prepare_benchmark step", 237
    ),
    needle="Error",
    pattern=re.compile(r"^(?:[\w.]{1,100}\.)?\w{0,80}Error: .{0,300}"),
    logs=("client-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=25,
    applies=after_prepare,
)
