"""The benchmark families evalkit knows, each a package with the same small interface:

- `recognises`: whether a run is one of its tasks;
- its pass plan (runs.run.PassPlan): the item key for pairing and what the one pass over
  the rollouts folds (MRCR: Gym's aggregate);
- its score: the headline, its scale, and the strata (MRCR: needle counts);
- expected counts and grading where it has them (mrcr/variants.py, mrcr/grading.py).

The run checks that are a benchmark's own live in checks/ (they need the check model,
which sits above this layer). This module picks the family for a run and hands the
family's plan down to the run model, which knows no benchmark.
"""

from __future__ import annotations

from typing import Any

from evalkit.benchmarks import gdpval, mrcr, results_yml
from evalkit.benchmarks.mrcr.score import mrcr_score
from evalkit.runs.layout import TaskRun
from evalkit.runs.run import GENERIC, PassPlan, RolloutPass, Run, as_run


def is_mrcr(task: TaskRun) -> bool:
    """Whether a task run is MRCR (mrcr.recognises), answered once per run."""
    run = as_run(task)
    if "_is_mrcr" not in run.__dict__:
        run.__dict__["_is_mrcr"] = mrcr.recognises(run)
    return run.__dict__["_is_mrcr"]


def plan_for(run: Run) -> PassPlan:
    return mrcr.PLAN if is_mrcr(run) else GENERIC


def rollout_pass(task: TaskRun) -> RolloutPass:
    """The run's one pass over its rollouts, read with its benchmark's plan."""
    run = as_run(task)
    return run.scan(plan_for(run))


def gym_benchmark(task: TaskRun) -> str:
    """mrcr, gdpval, or the agent's name for another Gym task."""
    run = as_run(task)
    if is_mrcr(run):
        return "mrcr"
    agent = rollout_pass(run).first_agent or ""
    return "gdpval" if gdpval.recognises([agent]) else (agent or run.name)


def other_score(task: TaskRun) -> dict[str, Any]:
    """A non-MRCR task's headline: results.yml, else GDPVal's rubric mean; with its
    denominators (items, scored, failed by cause) when the harness leaves items."""
    from evalkit.benchmarks.harnesses import task_outcomes
    from evalkit.benchmarks.results_yml.denominators import with_outcomes

    run = as_run(task)
    entry = results_yml.other_score(run, fallback=gdpval.gym_rubric_score)
    return with_outcomes(entry, task_outcomes(run))


def task_score(task: TaskRun) -> dict[str, Any]:
    run = as_run(task)
    return mrcr_score(run) if is_mrcr(run) else other_score(run)


__all__ = ["gym_benchmark", "is_mrcr", "other_score", "plan_for", "rollout_pass", "task_score"]
