"""Completed-run validation: each check turns plain inputs into a pass / warn / fail result.

The policy and its numbers are documented in references/run-validation.md ("What evalkit
validate checks"); keep the two in step. A failing check carries the verdict it forces:
`invalid` (the score must not be quoted) or `incomplete` (the run did not finish: resume or
rerun). Warnings never change the verdict.

Layers: the `check_*` functions take counts, texts and numbers only; `scan_log` digests a
log's lines once; `validate_task` gathers those inputs from a run directory (streaming the
rollouts once) and `validate_path` does it for every task under a path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.benchmarks import is_mrcr, rollout_pass
from evalkit.checks.logs import (  # noqa: F401  (status and tests read them from here)
    check_gym_pin,
    check_http_retries,
    check_log_errors,
    check_pre_cmd,
    check_preemption,
)
from evalkit.checks.model import (  # noqa: F401  (status and tests read them from here)
    CHECK_IDS,
    FAIL,
    INCOMPLETE,
    INVALID,
    PASS,
    VALID,
    WARN,
    Check,
    Expectation,
    expected_rollouts,
    failed,
    passed,
    verdict,
    warned,
    worst,
)
from evalkit.checks.results import (  # noqa: F401  (status and tests read them from here)
    _is_finite_number,
    check_results_file,
    check_score,
)
from evalkit.checks.rollouts import (  # noqa: F401  (status and tests read them from here)
    check_aggregate,
    check_duplicates,
    check_output_limit,
    check_prefix_gate,
    check_rollout_count,
    check_truncation,
)
from evalkit.errors import InputError
from evalkit.runs.logscan import (  # noqa: F401  (status and tests read them from here)
    GYM_COMMIT_BANNER,
    MAX_HITS,
    SHA_PATTERN,
    LogScan,
    pre_cmd_failure,
    read_log,
    scan_log,
)
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


def validate_task(task: Any, expected_override: int | None = None) -> TaskReport:
    """All checks for one TaskRun (evalkit.runs.layout); MRCR gets the full set."""
    from evalkit.inputs import load_json
    from evalkit.runs.run import as_run

    task = as_run(task)
    settings = task.settings

    metrics = load_json(task.metrics_path) if task.metrics_path.is_file() else None
    client = [read_log(p) for p in log_files(task.logs_dir, "client-")]
    server = [read_log(p) for p in log_files(task.logs_dir, "server-")]
    others = [
        read_log(p)
        for p in log_files(task.logs_dir, "")
        if not p.name.startswith(("client-", "server-"))
    ]

    logs = client + server + others
    if is_mrcr(task):
        checks = _mrcr_checks(task, settings, metrics, client, server, expected_override)
        return TaskReport(task.name, "mrcr", checks + _gym_version_checks(task))
    checks = _generic_checks(task, metrics, logs, server)
    if task.is_gym:
        checks += _gym_version_checks(task)
    return TaskReport(task.name, "generic", checks)


def _gym_version_checks(task: Any) -> list[Check]:
    """The Gym version the bootstrap logged (info: compare needs it equal on both sides)."""
    from evalkit.runs.run import gym_version

    version = gym_version(task.gym_versions)
    if version is None:
        return []  # gym-pin (MRCR) already says when the banner is missing
    return [passed("gym-version", f"NeMo Gym version {version} (from the client log)")]


def _mrcr_checks(
    task: Any,
    settings: RunSettings,
    metrics: Any,
    client: list[LogScan],
    server: list[LogScan],
    expected_override: int | None,
) -> list[Check]:
    from evalkit.benchmarks.mrcr.variants import AGENTS, GYM_PIN, VARIANTS

    checks: list[Check] = []
    pin = settings.gym_commit or GYM_PIN
    pin_source = "install_on_the_fly.commit" if settings.gym_commit else "evalkit GYM_PIN"

    if not task.rollouts_path.is_file():
        expectation = expectation_for(None, settings, expected_override, VARIANTS, AGENTS)
        checks.append(
            failed(
                "rollout-count",
                INCOMPLETE,
                "no artifacts/evaluator_rollouts.jsonl"
                + (f" ({expectation.count} rollouts expected)" if expectation else ""),
            )
        )
    else:
        from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries, select_agent

        scan = rollout_pass(task)  # the run's one pass over its rollouts
        stats, agg = scan.stats, scan.aggregate
        tally = _Tally(scan.records, scan.incomplete, scan.first_agent)
        expectation = expectation_for(tally.agent, settings, expected_override, VARIANTS, AGENTS)
        checks.append(check_rollout_count(agg.rollouts, expectation))
        checks.append(check_duplicates(agg.duplicates, agg.conflicting_duplicates))
        checks.append(check_truncation(stats.truncated_last_line, stats.blank_lines))
        from evalkit.benchmarks.mrcr.leaks import leak_reading

        leaks = leak_reading(agg.reasoning_leaks, agg.rollouts + agg.duplicates)
        checks.append(check_prefix_gate(agg.prefix_matched if agg.rollouts else None, leaks))
        counted = length_from_metrics(metrics)
        if counted is not None:
            checks.append(check_output_limit(*counted, "eval_factory_metrics.json response_stats"))
        else:
            checks.append(
                check_output_limit(
                    tally.incomplete, tally.records, "rollouts with incomplete_details"
                )
            )
        if not task.aggregate_path.is_file():
            checks.append(check_aggregate(None, None, {}))
        elif stats.truncated_last_line:
            # The cut-off record is lost to us but not to the aggregate: no fair comparison.
            checks.append(
                warned(
                    "aggregate-agreement",
                    "not compared: the rollouts file is truncated (see truncation)",
                )
            )
        else:
            # A corrupt aggregate file is a failed check (the run's own output is broken),
            # as is a missing entry; only the run path itself is a usage question.
            try:
                entries = read_aggregate_entries(task.aggregate_path)
                _name, file_metrics = select_agent(entries, tally.agent, task.aggregate_path)
            except InputError as err:
                checks.append(
                    failed(
                        "aggregate-agreement",
                        INVALID,
                        f"{Path(err.path or '').name}: {err.message}" if err.path else err.message,
                    )
                )
            else:
                pass_at_1 = agg.pass_at_1 if agg.rollouts else None
                checks.append(check_aggregate(file_metrics, pass_at_1, dict(agg.strata)))
    checks.append(check_gym_pin(client, pin, pin_source))
    checks.append(check_pre_cmd(client))
    checks.append(check_preemption(server))
    checks.append(check_log_errors(client + server))
    checks.append(check_http_retries(client))
    order = {cid: i for i, cid in enumerate(CHECK_IDS)}
    return sorted(checks, key=lambda c: order.get(c.id, len(order)))


def expectation_for(agent, settings, override, variants, agents) -> Expectation | None:
    variant = agents.get(agent) if agent else None
    if variant is None and settings.variant:
        variant = variants.get(settings.variant)
    return expected_rollouts(
        variant.expected_rows if variant else None,
        variant.config if variant else None,
        repeats=settings.num_repeats,
        limit=settings.limit,
        override=override,
    )


@dataclass(frozen=True)
class _Tally:
    """What the aggregate does not keep, counted by the run's rollout pass."""

    records: int
    incomplete: int
    agent: str | None


def _generic_checks(
    task: Any, metrics: Any, logs: list[LogScan], server: Sequence[LogScan] = ()
) -> list[Check]:

    checks: list[Check] = []
    present = task.results_path.is_file()
    checks.append(check_results_file(present))
    if present:
        checks.append(check_score(list(iter_scores(load_results(task.results_path)))))
    counted = length_from_metrics(metrics)
    if counted is not None:
        checks.append(check_output_limit(*counted, "eval_factory_metrics.json response_stats"))
    else:
        checks.append(warned("output-limit", "no response_stats in eval_factory_metrics.json"))
    if server:  # a deployment ran for this task: its vLLM stats lines count too
        checks.append(check_preemption(server))
    checks.append(check_log_errors(logs))
    return checks


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
    document: dict[str, Any] = {
        "verdict": worst(r.verdict for r in reports),
        "checks": checks,
    }
    document["tasks"] = [
        {"task": r.task, "benchmark": r.benchmark, "verdict": r.verdict} for r in reports
    ]
    return document
