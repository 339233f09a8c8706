"""What happened to each item of a task that has ended, for `evalkit status`.

The same counts the report shows (the task's adapter, benchmarks.registry: scored, unparsed,
or failed by cause) and, for a task that is not on NeMo Gym, the run-level failures
(benchmarks.run_failures). Read once per task and state: a harness writes its per-item
files when it ends, so a running task has nothing to count yet.
"""

from __future__ import annotations

from typing import Any

from evalkit.benchmarks import adapter_for
from evalkit.benchmarks.run_failures import run_failures
from evalkit.errors import InputError
from evalkit.runs.layout import TaskRun
from evalkit.runs.run import as_run

ENDED_STATES = ("finished", "failed", "stopped_unfinished")


def outcome_summary(task: TaskRun) -> dict[str, Any] | None:
    """TaskOutcomes.as_dict() when a harness reader recognises the task; else, for a
    non-Gym task with run-level failures, those alone (items unknown); else None."""
    run = as_run(task)
    try:
        outcomes = adapter_for(run).items(run)
        if outcomes is not None:
            return outcomes.as_dict()
        if run.is_gym:
            return None
        failures = run_failures(run)
    except InputError as err:
        return {"harness": None, "items": None, "error": str(err), "run_failures": []}
    if not failures:
        return None
    return {
        "harness": None,
        "items": None,
        "run_failures": [
            {"outcome": f.outcome.value, "evidence": f.evidence, "count": f.count} for f in failures
        ],
    }


class OutcomeCache:
    """One read per task and ended state (a resumed task is read again when it ends)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, dict[str, Any] | None]] = {}

    def attach(self, task: TaskRun, status: Any) -> Any:
        if status.state not in ENDED_STATES:
            return status
        key = str(task.task_dir)
        if key not in self._seen or self._seen[key][0] != status.state:
            self._seen[key] = (status.state, outcome_summary(task))
        status.outcomes = self._seen[key][1]
        return status


__all__ = ["ENDED_STATES", "OutcomeCache", "outcome_summary"]
