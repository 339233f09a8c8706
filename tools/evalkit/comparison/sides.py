"""One side of a comparison, read from its loaded runs once: per Gym task the items and
sampling from the run's single rollout pass, per results.yml task its headline scores,
and every task's validate verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.benchmarks import adapter_for
from evalkit.benchmarks.mrcr.variants import agent_of
from evalkit.checks.model import FAIL
from evalkit.checks.validate import validate_task
from evalkit.errors import InputError
from evalkit.runs.results import iter_scores, load_results
from evalkit.runs.run import Run, as_run

Key = tuple[str, "int | None", str]


@dataclass
class GymSide:
    """What compare needs from one NeMo Gym run: items, settings, evidence of provenance."""

    path: Path
    agent: str | None
    agents: set[str]
    items: dict[Key, float]  # item key -> mean reward over its rollouts (0-1)
    duplicate_keys: int  # distinct task indices sharing one content key (merged)
    rollouts: int
    sampling: dict[str, float]
    sampling_source: str | None
    benchmark: str = "mrcr"
    fingerprints: dict = field(default_factory=dict)  # (item, rollout) -> Fingerprint
    provenance: dict[str, Any] = field(default_factory=dict)
    validation: tuple[str, list[str]] | None = None  # (verdict, failing checks) or None
    mixed_sampling: dict[str, list[float]] = field(default_factory=dict)
    copies_prompt: Callable[[Any], bool] | None = None  # Run.copies_prompt
    strata: tuple[str, ...] = ("all",)  # the adapter's strata (MRCR: needle counts)


def read_gym_side(task_run: Any, validation: tuple[str, list[str]] | None = None) -> GymSide:
    """One side from the run's single rollout pass. Sampling is what the rollouts sent
    (responses_create_params), else what the config says."""

    run = as_run(task_run)
    adapter = adapter_for(run)
    scan = run.scan(adapter.plan)
    settings = run.settings_or_empty
    agents = set(scan.agents)
    sampling = dict(scan.sampling)
    source = "rollouts (responses_create_params)" if sampling else None
    for key, value in settings.sampling.items():
        if key not in sampling and key not in scan.mixed_sampling:
            sampling[key] = value
            where = str(settings.config_path) if settings.config_path else "config"
            source = f"{source} + {where}" if source else where
    agent = next(iter(agents)) if len(agents) == 1 else None
    if agent is None and not agents:
        agent = agent_of(settings)
    return GymSide(
        path=run.task_dir,
        agent=agent,
        agents=agents,
        items=dict(scan.items),
        duplicate_keys=scan.duplicate_keys,
        rollouts=scan.aggregate.rollouts if scan.aggregate is not None else len(scan.fingerprints),
        sampling=sampling,
        sampling_source=source,
        benchmark=adapter.benchmark(run),
        fingerprints=scan.fingerprints,
        provenance=run.provenance.as_dict(),
        validation=validation,
        mixed_sampling=scan.mixed_sampling,
        copies_prompt=adapter.copies_prompt(run),
        strata=adapter.strata,
    )


@dataclass(frozen=True)
class Headline:
    task: str
    metric: str
    value: float
    stderr: float | None
    scale: str | None  # "0-100", "0-1", "-100..100"


def results_headlines(task_run: Any) -> list[Headline]:
    """The documented headline score of a results.yml task run (evalkit.scores), with
    its scale and stderr. When no documented key is found, every numeric score is
    compared instead (token telemetry left out), with its scale unknown."""

    entry = adapter_for(task_run).headline(task_run)
    if entry.get("value") is not None:
        scale = entry.get("scale")
        return [
            Headline(
                task=entry["benchmark"]
                if entry.get("benchmark") not in (None, "unknown")
                else task_run.name,
                metric=entry["metric"],
                value=float(entry["value"]),
                stderr=entry.get("stderr"),
                scale=None if scale == "unknown" else scale,
            )
        ]
    return [
        Headline(score.names[0], score.key, score.value, score.stderr, None)
        for score in iter_scores(load_results(task_run.results_path))
        if score.value is not None and "key_metrics/" not in score.key
    ]


def to_points(value: float, scale: str | None) -> float:
    """Points on the task's own scale: a 0-1 task's 0.01 is one point (documented scale,
    never guessed from the value)."""
    return value * 100.0 if scale == "0-1" else value


@dataclass
class SuiteTask:
    """One task run of one side, with what compare needs to pair and judge it."""

    run: Any  # evalkit.runs.run.Run
    benchmark: str
    kind: str  # "gym" (rollouts), "items" (a harness's per-item files) or "results"
    validation: tuple[str, list[str]]  # (verdict, failing check messages)
    headline: Any = None  # Headline, for results and items tasks
    outcomes: Any = None  # runs.outcomes.TaskOutcomes, for items tasks
    adapter: Any = None  # benchmarks.adapter.Adapter, chosen once when loaded


def validation_of(run: Run) -> tuple[str, list[str]]:
    """(validate verdict, failing checks) of one run."""
    report = validate_task(run)
    return report.verdict, [f"{c.id}: {c.message}" for c in report.checks if c.status == FAIL]


def load_side(runs: list[Run]) -> list[SuiteTask]:
    """The tasks of one side, from its runs as loaded once by the caller; each run asks
    its adapter (chosen once) what it holds."""
    tasks: list[SuiteTask] = []
    for run in runs:
        adapter = adapter_for(run)
        validation = validation_of(run)  # streams the rollouts: the pass is then cached
        if adapter.kind == "gym":
            if not run.rollouts_path.is_file():
                raise InputError(
                    "no rollouts file: Gym items cannot be paired without it", run.rollouts_path
                )
            tasks.append(SuiteTask(run, adapter.benchmark(run), "gym", validation, adapter=adapter))
            continue
        try:
            headlines = results_headlines(run)
        except InputError:
            headlines = []  # validate already failed it (results-file); shown as no score
        outcomes = adapter.items(run)
        if outcomes is not None and outcomes.items and len(headlines) <= 1:
            label = headlines[0].task if headlines else run.name
            head = headlines[0] if headlines else None
            tasks.append(SuiteTask(run, label, "items", validation, head, outcomes, adapter))
            continue
        if not headlines:
            tasks.append(SuiteTask(run, run.name, "results", validation, adapter=adapter))
        for headline in headlines:
            label = headline.task if len(headlines) == 1 else f"{headline.task}/{headline.metric}"
            tasks.append(SuiteTask(run, label, "results", validation, headline, adapter=adapter))
    return tasks
