"""NeMo Gym ran at the full pinned commit.

## What it does
Reads every line after `=== NeMo Gym commit ===` in `logs/client-*.log` and requires the
full SHA of the pin: the run config's `install_on_the_fly.commit`, else evalkit's pin. On
a growing run it waits until the banner's SHA line is written.

## Why is this bad
Severity: fail (`invalid`). Another Gym commit grades and aggregates differently, so the
score is not comparable; with no banner (or no client log) nothing proves which code
graded the run.

## Example
`client-77.log:12: Gym commit printed as 0123abc..., expected the full pin a431501...`.

## Fix
Set `install_on_the_fly.commit` to the full pin and relaunch; validate the task
directory (with its `logs/`), not only `artifacts/`.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed
from evalkit.checks.rule import Rule
from evalkit.runs.logscan import GYM_COMMIT_BANNER, SHA_PATTERN, LogScan

ID = "gym-pin"


def check_gym_pin(client_logs: Sequence[LogScan], pin: str, pin_source: str) -> Check:
    if not client_logs:
        return failed(
            ID,
            INVALID,
            f"no client log (logs/client-*.log) to prove NeMo Gym ran at {pin} "
            f"({pin_source}); validate the task directory, not only artifacts/",
        )
    printed = [(s.name, n, text) for s in client_logs for n, text in s.commits]
    if not printed:
        return failed(
            ID,
            INVALID,
            f"no '{GYM_COMMIT_BANNER}' line in the client log: the pinned Gym bootstrap "
            "did not run (is install_on_the_fly set?)",
        )
    for name, line_no, text in printed:
        shas = SHA_PATTERN.findall(text.lower())
        if pin.lower() not in shas:
            shown = shas[0] if shas else (text or "nothing")
            return failed(
                ID,
                INVALID,
                f"{name}:{line_no}: Gym commit printed as {shown}, expected the full pin "
                f"{pin} ({pin_source})",
            )
    return passed(ID, f"NeMo Gym at {pin} in {len(printed)} client log banner(s)")


def judge(ev: Evidence) -> Check | None:
    if not ev.mrcr:
        return None
    if ev.growing:
        # A growing run is judged once the banner could have been printed.
        done = ev.rollouts.unique if ev.rollouts else 0
        judged = done or any(s.commits for s in ev.client) or ev.quiet
        if not ev.client or not judged or ev.banner_pending:
            return None
    return check_gym_pin(ev.client, ev.gym_pin, ev.gym_pin_source)


RULE = Rule(ID, "Gym at the pinned commit", judge, __doc__ or "")
