"""The failure signatures on `evalkit status`'s answer: one triage per task, attached to
the task's status (as `status.triage`) and to its JSON (`"triage"`). Status knows
nothing of the rules; this is the one call it makes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalkit.checks.failures.triage import TaskTriage, triage_task
from evalkit.runs.layout import TaskRun


def attach(
    tasks: Sequence[TaskRun], statuses: Sequence[Any], slurm: Any = None
) -> list[TaskTriage]:
    """Triage each task in its status's state; SLURM, when given, is a parsed sacct or
    squeue view (failures/sacct.py) combined with each task's jobs."""
    found = []
    for task, status in zip(tasks, statuses, strict=True):
        # A task awaiting the follow-up job run.sub queued is alive: its chain goes on.
        state = "running" if getattr(status, "awaiting_resume", False) else status.state
        t = triage_task(task, state, status.done, status.expected)
        if slurm is not None:
            from evalkit.checks.failures.slurmview import combine

            combine(t, slurm)
        if t.cause is not None and not (t.cause.rule.resubmit and t.cause.rule.next == "resume"):
            # Not a resume event: the task failed, whatever its files' age suggested.
            status.state = "failed"
            status.awaiting_resume = False
            status.warnings = [w for w in status.warnings if w.id != "stopped"]
        t.state = status.state
        status.triage = t
        found.append(t)
    return found


def add_to_document(document: dict[str, Any], triages: Sequence[TaskTriage]) -> dict[str, Any]:
    for entry, t in zip(document.get("tasks", []), triages, strict=False):
        entry["triage"] = t.to_json()
    return document


def exit_code(triages: Sequence[TaskTriage]) -> int:
    """1 when a task ended with a cause or a live task shows one that says stop."""
    stop = any(t.warnings for t in triages) or any(
        t.cause is not None and (not t.cause.rule.resubmit or t.attempts.exhausted) for t in triages
    )
    return 1 if stop else 0
