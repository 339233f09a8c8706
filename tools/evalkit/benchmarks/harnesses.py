"""The per-item readers, one module per harness (simple-evals, lm-eval, HLE, Gym), each
with the same two functions:

- `recognises(run) -> bool`: the task's artifacts hold this harness's per-item files;
- `read_outcomes(run) -> TaskOutcomes`: every item with its outcome (runs/outcomes.py).

`task_outcomes` asks the run's adapter (benchmarks/registry.py) for its items: None for a
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
    from evalkit.benchmarks.registry import adapter_for

    run = as_run(task)
    return adapter_for(run).items(run)


__all__ = ["HarnessReader", "READERS", "task_outcomes"]
