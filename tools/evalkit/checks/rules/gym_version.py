"""The NeMo Gym version the client log names (information).

## What it does
Reports the Gym version the bootstrap printed in the client log of a Gym task. It never
warns or fails: `gym-pin` already fails an MRCR run whose banner is missing. Only on a
finished run.

## Why is this bad
Severity: information. `evalkit compare` needs the same Gym version on both sides; this
line makes it visible in the validate report.

## Example
`NeMo Gym version 0.2.0 (from the client log)`.

## Fix
Nothing to fix; compare runs graded by the same Gym version.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import Check, passed
from evalkit.checks.rule import Rule

ID = "gym-version"


def judge(ev: Evidence) -> Check | None:
    if not (ev.mrcr or ev.is_gym) or ev.gym_version is None:
        return None
    return passed(ID, f"NeMo Gym version {ev.gym_version} (from the client log)")


RULE = Rule(ID, "Gym version named", judge, __doc__ or "", growing=False)
