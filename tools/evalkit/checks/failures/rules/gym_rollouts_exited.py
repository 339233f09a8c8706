"""NeMo Gym's rollout collection exited with an error (the MRCR bootstrap reports it).

## What it does
Finds the MRCR bootstrap's `gym bootstrap: ng_e2e_collect_rollouts exited with N` in
the client log (recipes/examples/gym/example_mrcr.yaml, step 5), the job's own exit.

## Why is this bad
The rollouts stopped before the last item; the lines above it in the client log say
why (a server error, the policy endpoint gone, a Gym exception). A more specific
signature names it when one matched.

## Fix
Read the error above the quoted line and fix that; the rollouts already written stay,
and a resume continues from them once the cause is gone.
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import NONE, Change, FailureRule, Hit, Source, TaskFacts

ID = "gym-rollouts-exited"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"ng_e2e_collect_rollouts exited with {hit.groups.get('code')}; no more specific "
        "signature matched: the client log's lines above it hold the error"
    )


RULE = FailureRule(
    id=ID,
    name="Gym rollouts exited",
    doc=__doc__,
    source=Source("this skill", "recipes/examples/gym/example_mrcr.yaml", "step 5", 254),
    needle="ng_e2e_collect_rollouts exited with",
    pattern=re.compile(r"gym bootstrap: ng_e2e_collect_rollouts exited with (?P<code>\d{1,3})"),
    logs=("client-",),
    resubmit=False,
    next=NONE,
    fix=_fix,
    cause=_cause,
    rank=65,
    ends_job=True,
)
