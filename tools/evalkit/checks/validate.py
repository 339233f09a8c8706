"""Completed-run validation: gather one task's evidence, run every rule, give a verdict.

The rules are `checks/rules/` (one per module, documented in references/run-validation.md,
"What evalkit validate checks"). A failing check carries the verdict it forces: `invalid`
(the score must not be quoted) or `incomplete` (the run did not finish: resume or rerun).
Warnings never change the verdict. `validate_task` streams the rollouts once (the run's
pass, shared with compare); `validate_path` does it for every task under a path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.benchmarks import TaskView, load_task
from evalkit.checks.evidence import Evidence, RolloutFacts
from evalkit.checks.model import Check, Expectation, expected_rollouts, verdict, worst
from evalkit.checks.runner import run_rules
from evalkit.runs.logscan import read_log
from evalkit.runs.results import iter_scores, load_results
from evalkit.runs.settings import RunSettings


@dataclass
class TaskReport:
    task: str
    benchmark: str  # "mrcr" or "generic"
    checks: list[Check]

    @property
    def verdict(self) -> str:
        return verdict(self.checks)


def log_files(logs_dir: Path | None, prefix: str) -> list[Path]:
    if logs_dir is None or not logs_dir.is_dir():
        return []
    return sorted(p for p in logs_dir.glob(f"{prefix}*.log") if p.is_file())


def _is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def length_from_metrics(metrics: Any) -> tuple[int, int] | None:
    """(length-capped, total) from eval_factory_metrics.json response_stats, if present."""
    stats = metrics.get("response_stats") if isinstance(metrics, dict) else None
    if not isinstance(stats, dict):
        return None
    reasons = stats.get("finish_reason")
    count = stats.get("count")
    if not isinstance(reasons, dict) or not _is_finite_number(count) or count <= 0:
        return None
    length = reasons.get("length", 0)
    if not _is_finite_number(length):
        return None
    return int(length), int(count)


def gym_pin_of(settings: RunSettings) -> tuple[str, str]:
    """(the Gym commit the run must show, where that pin comes from)."""
    from evalkit.benchmarks.mrcr.variants import GYM_PIN

    if settings.gym_commit:
        return settings.gym_commit, "install_on_the_fly.commit"
    return GYM_PIN, "evalkit GYM_PIN"


def expectation_for(agent, settings, override) -> Expectation | None:
    """The rollouts an MRCR run must hold: the agent's variant, else the config's."""
    from evalkit.benchmarks.mrcr.variants import AGENTS, VARIANTS

    variant = AGENTS.get(agent) if agent else None
    if variant is None and settings.variant:
        variant = VARIANTS.get(settings.variant)
    return expected_rollouts(
        variant.expected_rows if variant else None,
        variant.config if variant else None,
        repeats=settings.num_repeats,
        limit=settings.limit,
        override=override,
    )


def gather(task: Any, expected_override: int | None = None) -> Evidence:
    """What the rules read from a finished task, asked of its view (benchmarks.load_task:
    the adapter chosen once; a Run or TaskRun is loaded into one)."""
    from evalkit.inputs import load_json
    from evalkit.runs.run import gym_version

    view = task if isinstance(task, TaskView) else load_task(task)
    if view.settings_error is not None:
        raise view.settings_error
    settings = view.settings
    mrcr = view.adapter_name == "mrcr"  # MRCR's own checks (rollout counts, aggregate)
    paths = view.paths
    metrics = load_json(paths["metrics"]) if paths["metrics"].is_file() else None
    client = [read_log(p) for p in log_files(view.logs_dir, "client-")]
    server = [read_log(p) for p in log_files(view.logs_dir, "server-")]
    others = [
        read_log(p)
        for p in log_files(view.logs_dir, "")
        if not p.name.startswith(("client-", "server-"))
    ]
    facts, agent = None, None
    if mrcr and view.has_rollouts:
        scan = view.scan  # the run's one pass over its rollouts
        stats, agg = scan.stats, scan.aggregate
        agent = scan.first_agent
        facts = RolloutFacts(
            unique=agg.rollouts,
            records=scan.records,
            duplicates=agg.duplicates,
            conflicting=agg.conflicting_duplicates,
            incomplete=scan.incomplete,
            prefix_share=agg.prefix_matched if agg.rollouts else None,
            truncated_last_line=stats.truncated_last_line,
            blank_lines=stats.blank_lines,
            pass_at_1=agg.pass_at_1 if agg.rollouts else None,
            strata=dict(agg.strata),
            agent=agent,
            reasoning_leaks=agg.reasoning_leaks,
        )
    present = paths["results"].is_file()
    pin, pin_source = gym_pin_of(settings)
    return Evidence(
        mrcr=mrcr,
        is_gym=view.is_gym,
        growing=False,
        finished=True,
        client=client,
        server=server,
        other_logs=others,
        rollouts=facts,
        expectation=expectation_for(agent, settings, expected_override) if mrcr else None,
        response_stats=length_from_metrics(metrics),
        aggregate_path=paths["aggregate"] if paths["aggregate"].is_file() else None,
        results_present=present,
        scores=list(iter_scores(load_results(paths["results"]))) if present and not mrcr else None,
        gym_pin=pin,
        gym_pin_source=pin_source,
        gym_version=gym_version(view.gym_versions),
        outcomes=view.items,
        headline=view.headline if view.kind == "items" else None,
        item_scale=view.item_scale,
    )


def validate_task(task: Any, expected_override: int | None = None) -> TaskReport:
    """Every rule on one task (a TaskView, Run or TaskRun); MRCR gets the full set."""
    ev = gather(task, expected_override)
    return TaskReport(task.name, "mrcr" if ev.mrcr else "generic", run_rules(ev))


def validate_path(path: str | Path, expected_override: int | None = None) -> list[TaskReport]:
    from evalkit.runs.layout import resolve_task_runs

    return [validate_task(t, expected_override) for t in resolve_task_runs(Path(path))]


def report_document(reports: Sequence[TaskReport]) -> dict[str, Any]:
    several = len(reports) > 1
    checks: list[dict[str, Any]] = []
    for report in reports:
        for check in report.checks:
            doc = check.to_json()
            if several:
                doc["task"] = report.task
            checks.append(doc)
    return {
        "verdict": worst(r.verdict for r in reports),
        "checks": checks,
        "tasks": [
            {"task": r.task, "benchmark": r.benchmark, "verdict": r.verdict} for r in reports
        ],
    }
