"""A task run as its adapter reads it: what every command asks of a task, read once.

`load_task(run)` (benchmarks/registry.py) picks the adapter and reads this record in one
go; validate and compare then read its fields, never the run and never the benchmark, so
data flows up as values (the run's config, the rollout pass, the items, the headline,
the declared scale, the provenance). Only the response fingerprints, which compare alone
needs, are read on demand. The run stays reachable as `run` for what only a run has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.runs.outcomes import TaskOutcomes
from evalkit.runs.run import RolloutPass, Run
from evalkit.runs.settings import RunSettings

_UNREAD = object()


@dataclass
class TaskView:
    run: Run
    adapter: Any  # benchmarks.adapter.Adapter
    name: str
    kind: str  # "gym", "items" or "results"
    adapter_name: str
    strata: tuple[str, ...]
    task_dir: Path
    logs_dir: Path | None
    paths: dict[str, Path]  # results, rollouts, metrics, aggregate
    is_gym: bool
    has_rollouts: bool
    settings: RunSettings | None  # None: the config does not parse (settings_error)
    settings_error: InputError | None
    settings_or_empty: RunSettings
    scan: RolloutPass | None  # the one pass over the rollouts with the adapter's plan
    items: TaskOutcomes | None
    item_scale: str | None
    headline: dict[str, Any] | None  # tasks compared by headline or items; None for Gym
    benchmark: str
    dataset: tuple[int, str] | None
    provenance: dict[str, str | None]
    gym_versions: list[tuple[str, int, str]]
    copies_prompt: Any
    config_agent: str | None  # the agent the config names (MRCR: its variant's)
    _responses: Any = field(default=_UNREAD, repr=False)
    _fingerprint: Any = field(default=_UNREAD, repr=False)
    _stored: Any = field(default=_UNREAD, repr=False)

    def responses(self):
        """Response fingerprints (the reuse trust check), read on first use."""
        if self._responses is _UNREAD:
            self._responses = self.adapter.responses(self.run)
        return self._responses

    def stored_replies(self):
        """Reply fingerprints from the harness's own per-item store (reuse check)."""
        if self._stored is _UNREAD:
            reader = getattr(self.adapter, "stored_replies", None)
            self._stored = reader(self.run) if reader is not None else None
        return self._stored

    def fingerprint(self):
        """The run's fingerprint (runs/fingerprint.py) with the dataset identity this
        adapter reads from its items, read on first use."""
        if self._fingerprint is _UNREAD:
            from evalkit.runs.fingerprint import DatasetIdentity, read_fingerprint

            dataset = None
            if self.dataset is not None:
                dataset = DatasetIdentity(item_count=self.dataset[0], digest=self.dataset[1])
            self._fingerprint = read_fingerprint(self.run, dataset)
        return self._fingerprint


def read_view(run: Run, adapter: Any) -> TaskView:
    """Everything the commands ask of one task run, in the order each depends on: the
    config, the rollout pass, the items, the headline, then provenance (which falls back
    on the model name the rollouts carry)."""
    try:
        settings, error = run.settings, None
    except InputError as err:
        settings, error = None, err
    has_rollouts = run.rollouts_path.is_file()
    scan = run.scan(adapter.plan) if adapter.kind == "gym" and has_rollouts else None
    items = adapter.items(run)
    headline = adapter.headline_or_none(run) if adapter.kind != "gym" else None
    return TaskView(
        run=run,
        adapter=adapter,
        name=run.name,
        kind=adapter.kind,
        adapter_name=adapter.name,
        strata=adapter.strata,
        task_dir=run.task_dir,
        logs_dir=run.logs_dir,
        paths={
            "results": run.results_path,
            "rollouts": run.rollouts_path,
            "metrics": run.metrics_path,
            "aggregate": run.aggregate_path,
        },
        is_gym=run.is_gym,
        has_rollouts=has_rollouts,
        settings=settings,
        settings_error=error,
        settings_or_empty=settings or RunSettings(),
        scan=scan,
        items=items,
        item_scale=adapter.item_scale(run),
        headline=headline,
        benchmark=adapter.benchmark(run),
        dataset=adapter.dataset(run),
        provenance=run.provenance.as_dict(),
        gym_versions=run.gym_versions,
        copies_prompt=adapter.copies_prompt(run),
        config_agent=adapter.config_agent(run),
    )


__all__ = ["TaskView", "read_view"]
