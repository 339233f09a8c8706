"""One side of a comparison, read from its loaded runs once: per Gym task the items and
sampling from the run's single rollout pass, per results.yml task its headline scores,
and every task's validate verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.benchmarks import TaskView, load_task
from evalkit.checks.model import FAIL
from evalkit.checks.validate import validate_task
from evalkit.errors import InputError
from evalkit.runs.results import iter_scores, load_results
from evalkit.runs.run import Run

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

    view = task_run if isinstance(task_run, TaskView) else load_task(task_run)
    scan = view.scan
    if scan is None:
        raise InputError(
            "no rollouts file: Gym items cannot be paired without it", view.paths["rollouts"]
        )
    agents = set(scan.agents)
    sampling = dict(scan.sampling)
    source = "rollouts (responses_create_params)" if sampling else None
    fingerprint = view.fingerprint()  # the task's own record: its Gym command, its params
    for key in ("temperature", "top_p"):
        found = fingerprint[key]
        if (
            key in sampling
            or key in scan.mixed_sampling
            or not isinstance(found.value, float | int)
        ):
            continue
        sampling[key] = float(found.value)
        if found.source and found.source not in (source or ""):
            source = f"{source} + {found.source}" if source else found.source
    agent = next(iter(agents)) if len(agents) == 1 else None
    if agent is None and not agents:
        agent = view.config_agent
    return GymSide(
        path=view.task_dir,
        agent=agent,
        agents=agents,
        items=dict(scan.items),
        duplicate_keys=scan.duplicate_keys,
        rollouts=scan.aggregate.rollouts if scan.aggregate is not None else len(scan.fingerprints),
        sampling=sampling,
        sampling_source=source,
        benchmark=view.benchmark,
        fingerprints=scan.fingerprints,
        provenance=view.provenance,
        validation=validation,
        mixed_sampling=scan.mixed_sampling,
        copies_prompt=view.copies_prompt,
        strata=view.strata,
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

    view = task_run if isinstance(task_run, TaskView) else load_task(task_run)
    entry = view.headline
    if entry is None:
        raise InputError(
            "no readable results.yml (the task did not finish?)", view.paths["results"]
        )
    if entry.get("value") is not None:
        scale = entry.get("scale")
        return [
            Headline(
                task=entry["benchmark"]
                if entry.get("benchmark") not in (None, "unknown")
                else view.name,
                metric=entry["metric"],
                value=float(entry["value"]),
                stderr=entry.get("stderr"),
                scale=None if scale == "unknown" else scale,
            )
        ]
    found: dict[tuple[str, str], Headline] = {}
    for score in iter_scores(load_results(view.paths["results"])):
        if score.value is not None and "key_metrics/" not in score.key:
            # a task's score repeated in its group (nemo-evaluator writes both) is one score
            key = (score.names[0], score.key)
            found.setdefault(key, Headline(*key, score.value, score.stderr, None))
    return list(found.values())


def to_points(value: float, scale: str | None) -> float:
    """Points on the task's own scale: a 0-1 task's 0.01 is one point (documented scale,
    never guessed from the value)."""
    return value * 100.0 if scale == "0-1" else value


@dataclass
class SuiteTask:
    """One task run of one side, with what compare needs to pair and judge it."""

    view: Any  # evalkit.benchmarks.view.TaskView: the run as its adapter reads it
    benchmark: str
    kind: str  # "gym" (rollouts), "items" (a harness's per-item files) or "results"
    validation: tuple[str, list[str]]  # (verdict, failing check messages)
    headline: Any = None  # Headline, for results and items tasks
    outcomes: Any = None  # runs.outcomes.TaskOutcomes, for items tasks

    @property
    def run(self) -> Any:
        return self.view.run


def validation_of(view: Any) -> tuple[str, list[str]]:
    """(validate verdict, failing checks) of one task view."""
    report = validate_task(view)
    return report.verdict, [f"{c.id}: {c.message}" for c in report.checks if c.status == FAIL]


def load_side(runs: list[Run]) -> list[SuiteTask]:
    """The tasks of one side, from its runs as loaded once by the caller; each is read
    through its view (benchmarks.load_task: the adapter chosen once)."""
    tasks: list[SuiteTask] = []
    for run in runs:
        view = load_task(run)
        validation = validation_of(view)  # streams the rollouts: the pass is then cached
        if view.kind == "gym":
            if not view.has_rollouts:
                raise InputError(
                    "no rollouts file: Gym items cannot be paired without it",
                    view.paths["rollouts"],
                )
            tasks.append(SuiteTask(view, view.benchmark, "gym", validation))
            continue
        try:
            headlines = results_headlines(view)
        except InputError:
            headlines = []  # validate already failed it (results-file); shown as no score
        outcomes = view.items
        if outcomes is not None and outcomes.items and len(headlines) <= 1:
            label = headlines[0].task if headlines else view.name
            head = headlines[0] if headlines else None
            tasks.append(SuiteTask(view, label, "items", validation, head, outcomes))
            continue
        if not headlines:
            tasks.append(SuiteTask(view, view.name, "results", validation))
        for headline in headlines:
            label = headline.task if len(headlines) == 1 else f"{headline.task}/{headline.metric}"
            tasks.append(SuiteTask(view, label, "results", validation, headline))
    return tasks
