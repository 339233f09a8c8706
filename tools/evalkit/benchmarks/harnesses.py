"""The items of a task, from its adapter (benchmarks/registry.py): kept for the callers
that want only the items. Each harness's reader (simple_evals/, lm_eval/, hle/) fills
runs.outcomes.TaskOutcomes; its adapter says which reader a run gets."""

from __future__ import annotations

from evalkit.runs.outcomes import TaskOutcomes
from evalkit.runs.run import as_run


def task_outcomes(task) -> TaskOutcomes | None:
    """The task's items accounted for, read once per run, or None (no per-item data)."""
    from evalkit.benchmarks.registry import adapter_for

    run = as_run(task)
    return adapter_for(run).items(run)


__all__ = ["task_outcomes"]
