"""The closing block of `evalkit status`: the checks run on what is written so far, and
the commands that act on the answer (cancel, change, relaunch; resume; validate).

The cancel command is nel 0.2.6's own: `nel kill ID` takes one positional ID, a job id
`<invocation>.<n>` or a whole invocation id (nemo-evaluator-launcher 0.2.6,
cli/kill.py), and task directory `<task>.<n>` belongs to job `<invocation>.<n>`
(executors/slurm/executor.py). The launcher resolves the ID from the execution database
of the machine that ran `nel run`, so the command is run there."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.render.endings import checked_line, ending, fix_line, quote
from evalkit.render.triage import triage_steps
from evalkit.status.monitor import FAILED, FINISHED, RESUME, STOP

_INDEX = re.compile(r"\.(\d+)$")


def _job_id(status: Any) -> str:
    inv = status.invocation_id or "<invocation id>"
    match = _INDEX.search(Path(status.path).name)
    return f"{inv}.{match.group(1)}" if match else inv


def _kill(stopping: Sequence[Any], statuses: Sequence[Any]) -> list[str]:
    """One command for the whole invocation when every task in it must stop, else one
    per task's job, so healthy tasks of the same invocation keep running."""
    invocations = {s.invocation_id for s in stopping}
    everything = len(stopping) == len(statuses) and len(invocations) == 1
    if everything and None not in invocations:
        targets = [next(iter(invocations))]
    else:
        targets = [_job_id(s) for s in stopping]
    kills = [
        f"nel kill {target}   (on the machine that ran `nel run`; cancels the Slurm job)"
        for target in targets
    ]
    if any(s.benchmark == "mrcr" for s in stopping):  # launched through the pinned wrapper
        kills.append(
            f"(the same through the pinned launcher: scripts/nel-gym.sh kill {targets[0]})"
        )
    return kills


def status_ending(statuses: Sequence[Any]) -> str:
    checked = [
        checked_line(s.checked, f"checks on {s.task}" if len(statuses) > 1 else "checks")
        for s in statuses
    ]
    # A task whose cause the failure signatures named gets their next command instead.
    triaged = [t for s in statuses if (t := getattr(s, "triage", None)) is not None and t.next]
    mine = {t.path for t in triaged}
    stopping = [s for s in statuses if s.stop and s.path not in mine]
    steps: list[str] = triage_steps(triaged, named=len(statuses) > 1)
    if stopping:
        alive = [s for s in stopping if s.state != FAILED]  # a failed job has ended
        steps += _kill(alive, statuses) if alive else []
        for s in stopping:
            causes = [w for w in s.warnings if w.kind == STOP] or s.warnings
            for w in causes:
                steps.append(f"change before relaunching: {fix_line(w.id)}")
        steps.append(
            "then relaunch the corrected config (the same command that launched it, "
            "e.g. scripts/nel-gym.sh run --config CONFIG for a gym task)"
        )
    for s in statuses:
        if s.stop or s.path in mine:
            continue
        resume = [w for w in s.warnings if w.kind == RESUME]
        if resume:
            steps.append(f"{s.task}: {resume[0].action}")
        elif s.state == FINISHED:
            steps.append(f"evalkit validate {quote(s.path)}")
        else:
            steps.append(f"evalkit status {quote(s.path)} --watch 600   (nothing to change now)")
    return ending(checked, steps)
