"""The failure signatures on `evalkit status`'s answer: one triage per task, attached to
the task's status (as `status.triage`) and to its JSON (`"triage"`). Status knows
nothing of the rules; these are the calls it makes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalkit.checks.failures.model import RESUME
from evalkit.checks.failures.rules import RULES
from evalkit.checks.failures.scan import LogScanner
from evalkit.checks.failures.slurmtext import SlurmRow, read_sacct, read_squeue
from evalkit.checks.failures.slurmview import combine
from evalkit.checks.failures.triage import LIVE_STATES, TaskTriage, triage_task
from evalkit.runs.layout import TaskRun


def slurm_rows(sacct: str | None, squeue: str | None) -> list[SlurmRow] | None:
    """The rows of the files given to --sacct and --squeue (read before anything is
    printed, so a malformed one is one line and exit 2)."""
    if sacct is None and squeue is None:
        return None
    rows = read_sacct(sacct) if sacct else []
    return rows + (read_squeue(squeue) if squeue else [])


class Triager:
    """Triage per task, following each task's logs across refreshes (status --watch reads
    what was appended, as the monitor does)."""

    def __init__(
        self,
        tasks: Sequence[TaskRun],
        slurm: Sequence[SlurmRow] | None = None,
        sizing: Any = None,
    ):
        self.tasks = list(tasks)
        self.slurm = slurm
        self.sizing = sizing
        self.scanners = [LogScanner(RULES) for _ in self.tasks]

    def refresh(self, statuses: Sequence[Any]) -> list[TaskTriage]:
        return attach(self.tasks, statuses, self.slurm, self.scanners, self.sizing)


def attach(
    tasks: Sequence[TaskRun],
    statuses: Sequence[Any],
    slurm: Sequence[SlurmRow] | None = None,
    scanners: Sequence[LogScanner] | None = None,
    sizing: Any = None,
) -> list[TaskTriage]:
    """Triage each task in its status's state; SLURM, when given, is the sacct and squeue
    rows (failures/slurmtext.py) combined with each task's jobs."""
    found = []
    for n, (task, status) in enumerate(zip(tasks, statuses, strict=True)):
        # A task awaiting the follow-up job run.sub queued is alive: its chain goes on.
        state = "running" if getattr(status, "awaiting_resume", False) else status.state
        scanner = scanners[n] if scanners is not None else None
        t = triage_task(task, state, status.done, status.expected, scanner=scanner, sizing=sizing)
        t.state = status.state
        if slurm is not None:
            combine(t, slurm)
        if t.cause is not None and not t.cause.recognised:
            pass  # quoted, not named: the state stays what the files say
        elif t.cause is not None and not (t.cause.rule.resubmit and t.cause.rule.next == RESUME):
            # Not a resume event: the task failed, whatever its files' age suggested.
            status.state = "failed"
            status.awaiting_resume = False
            status.warnings = [w for w in status.warnings if w.id != "stopped"]
        elif t.cause is not None and status.state in LIVE_STATES:
            status.state = "stopped_unfinished"  # its job ended (a line says so); resume it
        t.state = status.state
        status.triage = t
        found.append(t)
    return found


def add_to_document(document: dict[str, Any], triages: Sequence[TaskTriage]) -> dict[str, Any]:
    for entry, t in zip(document.get("tasks", []), triages, strict=False):
        entry["triage"] = t.to_json()
    return document


def exit_code(triages: Sequence[TaskTriage]) -> int:
    """1 when a live task shows a signature, or an ended one has a cause that is no
    resume event or has repeated."""
    stop = any(t.warnings and t.next for t in triages) or any(
        t.cause is not None and (not t.cause.rule.resubmit or t.attempts.exhausted) for t in triages
    )
    return 1 if stop else 0
