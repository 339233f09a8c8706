"""The closing block of `evalkit status`: the checks run on what is written so far, and
the commands that act on the answer (cancel, change, relaunch; resume; validate).

The cancel command is nel 0.2.6's own: `nel kill ID` takes one positional ID, a job id
`<invocation>.<n>` or a whole invocation id (nemo-evaluator-launcher 0.2.6,
cli/kill.py), and task directory `<task>.<n>` belongs to job `<invocation>.<n>`
(executors/slurm/executor.py). The launcher resolves the ID from the execution database
of the machine that ran `nel run`, so the command is run there. The invocation id is
named only when the path examined was the whole invocation and every task of it must
stop (or resume); one task examined is its job alone (status/cancel.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.render.endings import checked_line, ending, fix_line, quote
from evalkit.render.triage import triage_steps
from evalkit.status.cancel import RESUME_FILES, id_hint, job_label, resubmit_dir
from evalkit.status.monitor import FAILED, FINISHED, RESUME, STOP


def _whole(acting: Sequence[Any], statuses: Sequence[Any]) -> str | None:
    """The invocation id when the whole invocation was examined and every task of it is
    in ACTING, else None (then each task's own job is named)."""
    invocations = {s.invocation_id for s in statuses}
    if len(acting) != len(statuses) or len(invocations) != 1 or None in invocations:
        return None
    if not all(getattr(s, "whole_invocation", False) for s in statuses):
        return None
    return next(iter(invocations))


def _kill(stopping: Sequence[Any], statuses: Sequence[Any]) -> list[str]:
    """One command for the whole invocation when it was examined and every task in it must
    stop, else one per task's job, so healthy tasks of the same invocation keep running."""
    whole = _whole(stopping, statuses)
    if whole is not None:
        targets = [whole]
    else:
        targets = [job_label(s.path, s.invocation_id) for s in stopping]
    kills = [
        f"nel kill {target}   (on the machine that ran `nel run`; cancels the Slurm job)"
        for target in targets
    ]
    hints = dict.fromkeys(h for t in targets if (h := id_hint(t)))
    kills += [f"({hint})" for hint in hints]
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
    # a task awaiting the follow-up job run.sub queued is resumed by it: no command
    resuming = [
        s
        for s in statuses
        if not s.stop and not s.awaiting_resume and any(w.kind == RESUME for w in s.warnings)
    ]
    whole_resume = _whole(resuming, statuses) if resuming else None
    if whole_resume is not None:
        steps.append(
            f"nel resume {whole_resume}   (on the machine that ran `nel run`; resubmits "
            "every job of the invocation)"
        )
    for s in statuses:
        if s.stop or s.path in mine:
            continue
        resume = [w for w in s.warnings if w.kind == RESUME]
        if resume:
            steps.append(f"{s.task}: {resume[0].action}")
            if whole_resume is None and s in resuming:
                where = quote(resubmit_dir(Path(s.path)))
                steps.append(
                    f"(cd {where} && rm -f {RESUME_FILES} && sbatch run.sub)   "
                    f"(on the cluster: resubmits {s.task}'s job alone)"
                )
        elif s.state == FINISHED:
            steps.append(f"evalkit validate {quote(s.path)}")
        else:
            steps.append(f"evalkit status {quote(s.path)} --watch 600   (nothing to change now)")
    return ending(checked, steps)
