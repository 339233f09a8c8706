"""The per-item readers, one module per harness (simple-evals, lm-eval, HLE, Gym), each
with the same two functions:

- `recognises(run) -> bool`: the task's artifacts hold this harness's per-item files;
- `read_outcomes(run) -> TaskOutcomes`: every item with its outcome (runs/outcomes.py).

`task_outcomes` asks them in order and returns the first reader's answer, or None for a
task whose harness leaves no per-item data (its score stays the results.yml headline).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from evalkit.benchmarks import hle, lm_eval, simple_evals
from evalkit.runs.outcomes import TaskOutcomes
from evalkit.runs.run import Run, as_run


class HarnessReader(NamedTuple):
    name: str
    recognises: Callable[[Run], bool]
    read_outcomes: Callable[[Run], TaskOutcomes]


# Registered readers, most specific first. Each harness package adds one line here.
READERS: tuple[HarnessReader, ...] = (
    HarnessReader(simple_evals.HARNESS, simple_evals.recognises, simple_evals.read_outcomes),
    HarnessReader("lm_eval", lm_eval.recognises, lm_eval.read_outcomes),
    HarnessReader("hle", hle.recognises, hle.read_outcomes),
)


def task_outcomes(task) -> TaskOutcomes | None:
    """The task's items accounted for, read once per run, or None (no per-item data)."""
    run = as_run(task)
    if "_outcomes" not in run.__dict__:
        found = next((r for r in READERS if r.recognises(run)), None)
        run.__dict__["_outcomes"] = found.read_outcomes(run) if found else None
    return run.__dict__["_outcomes"]


__all__ = ["HarnessReader", "READERS", "task_outcomes"]
