"""The benchmark adapters: one per task run, picked once from a registry
(benchmarks/registry.py), each answering through one interface (benchmarks/adapter.py)
for its items, its headline and declared scale, its dataset identity, its response
fingerprints and its Gym pass plan. Each family is a package (mrcr/, gdpval/,
simple_evals/, lm_eval/, hle/, results_yml/) holding its reader and an `adapter.py`.

The run checks that are a benchmark's own live in checks/ (they need the check model,
which sits above this layer); they read what the adapter answers.
"""

from __future__ import annotations

from typing import Any

from evalkit.benchmarks.registry import adapter_for, load_task
from evalkit.benchmarks.view import TaskView
from evalkit.runs.layout import TaskRun
from evalkit.runs.run import RolloutPass, as_run


def is_mrcr(task: TaskRun) -> bool:
    """Whether the task run's adapter is MRCR's (status' progress counts need it)."""
    return adapter_for(task).name == "mrcr"


def rollout_pass(task: TaskRun) -> RolloutPass:
    """The run's one pass over its rollouts, read with its adapter's plan."""
    run = as_run(task)
    return run.scan(adapter_for(run).plan)


def task_score(task: TaskRun) -> dict[str, Any]:
    """The task's headline as its adapter reports it, with the adapter named and the
    declared scale of one item's score."""
    run = as_run(task)
    adapter = adapter_for(run)
    entry = dict(adapter.headline(run))
    entry["adapter"] = adapter.name
    entry["item_scale"] = adapter.item_scale(run)
    dataset = adapter.dataset(run)
    entry["dataset"] = None if dataset is None else {"items": dataset[0], "digest": dataset[1]}
    entry["fingerprint"] = load_task_fingerprint(run, dataset)
    return entry


def load_task_fingerprint(run, dataset) -> dict[str, Any]:
    """The run's fingerprint (runs/fingerprint.py) as JSON, with the adapter's dataset."""
    from evalkit.runs.fingerprint import DatasetIdentity, read_fingerprint

    identity = None if dataset is None else DatasetIdentity(dataset[0], dataset[1])
    return read_fingerprint(run, identity).to_json()


__all__ = ["TaskView", "adapter_for", "is_mrcr", "load_task", "rollout_pass", "task_score"]
