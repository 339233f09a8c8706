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

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.benchmarks import is_mrcr, rollout_pass
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
from evalkit.runs.results import Score, iter_scores, load_results
from evalkit.runs.serverlog import VllmLogStats
from evalkit.runs.settings import RunSettings

PASS, WARN, FAIL = "pass", "warn", "fail"
VALID, INCOMPLETE, INVALID = "valid", "incomplete", "invalid"

# Policy numbers (references/run-validation.md, "What evalkit validate checks").
PREFIX_INVALID_BELOW = 0.25  # mean prefix_matched; golden 1M run: about 0.55
PREFIX_WARN_BELOW = 0.45
LENGTH_INVALID_ABOVE = 0.10  # fraction of responses with finish_reason "length"; golden 2.4 %
LENGTH_WARN_ABOVE = 0.05
AGGREGATE_REL_TOL = 1e-6  # Gym's own sums differ from a recomputation by about 1e-13
AGGREGATE_ABS_TOL = 1e-9  # so that two zeros (or 1e-12 vs 0) still agree


CHECK_IDS = (
    "rollout-count",
    "duplicates",
    "truncation",
    "gym-pin",
    "prefix-gate",
    "output-limit",
    "aggregate-agreement",
    "pre-cmd",
    "preemption",
    "log-errors",
    "http-retries",
    "results-file",
    "score",
    "gym-version",
)


@dataclass(frozen=True)
class Check:
    id: str
    status: str  # pass | warn | fail
    message: str
    kind: str | None = None  # for a fail: the verdict it forces (invalid | incomplete)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id, "status": self.status, "message": self.message}
        if self.kind is not None:
            doc["kind"] = self.kind
        return doc


def passed(check_id: str, message: str) -> Check:
    return Check(check_id, PASS, message)


def warned(check_id: str, message: str) -> Check:
    return Check(check_id, WARN, message)


def failed(check_id: str, kind: str, message: str) -> Check:
    return Check(check_id, FAIL, message, kind)


def verdict(checks: Iterable[Check]) -> str:
    """Any invalid failure -> invalid; else any incomplete failure -> incomplete; else valid."""
    kinds = {c.kind for c in checks if c.status == FAIL}
    if INVALID in kinds:
        return INVALID
    if INCOMPLETE in kinds:
        return INCOMPLETE
    return VALID


def worst(verdicts: Iterable[str]) -> str:
    order = (VALID, INCOMPLETE, INVALID)
    return max(verdicts, key=order.index, default=VALID)


# --------------------------------------------------------------------------- rollout count


@dataclass(frozen=True)
class Expectation:
    count: int
    source: str  # how the number was derived, quoted in the message


def expected_rollouts(
    variant_rows: int | None,
    variant_name: str | None,
    *,
    repeats: int = 1,
    limit: int | None = None,
    override: int | None = None,
) -> Expectation | None:
    """The number of unique (task, rollout) records a finished run must hold."""
    if override is not None:
        return Expectation(override, "--expected")
    if limit is not None:
        rows = limit if variant_rows is None else min(limit, variant_rows)
        source = f"canary ++limit={limit}"
    elif variant_rows is not None:
        rows = variant_rows
        source = f"{variant_name}: {variant_rows} rows"
    else:
        return None
    if repeats != 1:
        source += f" x {repeats} repeats"
    return Expectation(rows * repeats, source)


def check_rollout_count(found: int, expectation: Expectation | None) -> Check:
    cid = "rollout-count"
    if expectation is None:
        return warned(
            cid,
            f"{found} rollouts; expected count unknown (no MRCR variant in the run's config "
            "or rollouts); pass --expected N",
        )
    want = expectation.count
    if found < want:
        return failed(
            cid,
            INCOMPLETE,
            f"{found} of {want} expected rollouts ({expectation.source}): {want - found} "
            "missing; resume the run (progress is kept) before quoting a score",
        )
    if found > want:
        return failed(
            cid,
            INVALID,
            f"{found} rollouts but {want} expected ({expectation.source}): a different "
            "variant, repeat count or dataset than intended",
        )
    return passed(cid, f"{found} of {want} expected rollouts ({expectation.source})")


# ------------------------------------------------------------------ duplicates, truncation


def check_duplicates(duplicates: int, conflicting: int) -> Check:
    cid = "duplicates"
    if conflicting:
        return failed(
            cid,
            INVALID,
            f"{conflicting} (task, rollout) records repeated with a different reward or "
            "answer: the file mixes two runs",
        )
    if duplicates:
        return warned(
            cid,
            f"{duplicates} identical duplicate (task, rollout) records (a resume appended "
            "them again); counted once",
        )
    return passed(cid, "no duplicate (task, rollout) records")


def check_truncation(truncated_last_line: bool, blank_lines: int = 0) -> Check:
    cid = "truncation"
    if truncated_last_line:
        return failed(
            cid,
            INCOMPLETE,
            "the last line of evaluator_rollouts.jsonl is cut off (the writer was "
            "interrupted); resume the run",
        )
    if blank_lines:
        return passed(cid, f"every line complete ({blank_lines} blank lines ignored)")
    return passed(cid, "every line complete")


# ------------------------------------------------------------------------------------ logs


def _quote(scans: Sequence[LogScan], bucket: str) -> tuple[int, str]:
    total = sum(s.counts.get(bucket, 0) for s in scans)
    shown = [f"{s.name}:{n}: {text}" for s in scans for n, text in getattr(s, bucket)]
    return total, "; ".join(shown[:MAX_HITS])


def check_gym_pin(client_logs: Sequence[LogScan], pin: str, pin_source: str) -> Check:
    cid = "gym-pin"
    if not client_logs:
        return failed(
            cid,
            INVALID,
            f"no client log (logs/client-*.log) to prove NeMo Gym ran at {pin} "
            f"({pin_source}); validate the task directory, not only artifacts/",
        )
    printed = [(s.name, n, text) for s in client_logs for n, text in s.commits]
    if not printed:
        return failed(
            cid,
            INVALID,
            f"no '{GYM_COMMIT_BANNER}' line in the client log: the pinned Gym bootstrap "
            "did not run (is install_on_the_fly set?)",
        )
    for name, line_no, text in printed:
        shas = SHA_PATTERN.findall(text.lower())
        if pin.lower() not in shas:
            shown = shas[0] if shas else (text or "nothing")
            return failed(
                cid,
                INVALID,
                f"{name}:{line_no}: Gym commit printed as {shown}, expected the full pin "
                f"{pin} ({pin_source})",
            )
    return passed(cid, f"NeMo Gym at {pin} in {len(printed)} client log banner(s)")


def check_pre_cmd(client_logs: Sequence[LogScan]) -> Check:
    total, shown = _quote(client_logs, "pre_cmd")
    if total:
        return failed(
            "pre-cmd",
            INVALID,
            f"{total} pre_cmd failure line(s) in the client log (missing tokenizer "
            f"packages change which rows are kept): {shown}",
        )
    return passed("pre-cmd", "no ModuleNotFoundError or tiktoken failure in the client log")


def check_preemption(server_logs: Sequence[LogScan]) -> Check:
    """Preemptions summed over the vLLM stats lines of every server log (old-engine
    warnings also count); the message gives the count, the peak KV usage and the fix."""
    cid = "preemption"
    if not server_logs:
        return passed(cid, "no server logs to scan")
    total = VllmLogStats()
    for scan in server_logs:
        total.merge(scan.vllm)
    peak = (
        f"peak GPU KV cache usage {total.peak_kv_usage:.1f}%"
        if total.peak_kv_usage is not None
        else "no vLLM stats lines"
    )
    sizing = ""
    if total.concurrency is not None:
        tokens, requests = total.concurrency
        sizing = f"; the KV cache holds {requests:.2f}x requests of {tokens:,} tokens"
    count = total.preempted
    if count:
        first = next(
            (
                f"{s.name}:{s.vllm.first_preemption[0]}"
                for s in server_logs
                if s.vllm.first_preemption
            ),
            "",
        )
        return warned(
            cid,
            f"{count} vLLM preemption(s) in the server logs ({peak}{sizing}): the KV cache "
            "could not hold the concurrent requests, so vLLM recomputed them (slower, "
            "scores still valid); next time lower --max-num-seqs (or the parallelism) to "
            f"what the KV cache holds; first at {first}",
        )
    if not total.stats_lines:
        return passed(cid, "no preemption in the server logs (no vLLM stats lines)")
    pressure = ""
    if total.peak_kv_usage is not None and total.peak_kv_usage >= 99.0 and total.waiting_at_peak:
        pressure = f" with {total.waiting_at_peak} requests waiting (KV-bound, not yet preempting)"
    return passed(
        cid,
        f"no preemption in {total.stats_lines} vLLM stats lines ({peak}{pressure}{sizing})",
    )


def check_log_errors(logs: Sequence[LogScan]) -> Check:
    total, shown = _quote(logs, "errors")
    if total:
        return warned(
            "log-errors",
            f"{total} Traceback/OOM/Killed line(s) in the logs; read them before quoting "
            f"the score: {shown}",
        )
    if not logs:
        return warned("log-errors", "no logs/ directory to scan")
    return passed("log-errors", f"no Traceback, OOM or Killed in {len(logs)} log file(s)")


def check_http_retries(client_logs: Sequence[LogScan]) -> Check:
    total, shown = _quote(client_logs, "retries")
    if total:
        return warned(
            "http-retries",
            f"{total} request retry / HTTP error line(s) in the client log (Gym retries "
            f"them; many mean the model server is overloaded or restarting): {shown}",
        )
    if not client_logs:
        return passed("http-retries", "no client log to scan")
    return passed("http-retries", "no request retries or HTTP errors in the client log")


# ----------------------------------------------------------------------- grading signals


def check_prefix_gate(mean_prefix_matched: float | None) -> Check:
    cid = "prefix-gate"
    if mean_prefix_matched is None:
        return warned(cid, "no rollouts to measure mean prefix_matched")
    value = f"mean prefix_matched {mean_prefix_matched:.3f}"
    if mean_prefix_matched < PREFIX_INVALID_BELOW:
        return failed(
            cid,
            INVALID,
            f"{value} < {PREFIX_INVALID_BELOW}: the prefix gate is failing, usually "
            "reasoning leaking into the answer (check the reasoning parser and "
            "process_reasoning_traces)",
        )
    if mean_prefix_matched < PREFIX_WARN_BELOW:
        return warned(
            cid,
            f"{value} < {PREFIX_WARN_BELOW} (golden 1M run about 0.55): look for reasoning "
            "leaking into some answers",
        )
    return passed(cid, f"{value} (golden 1M run about 0.55)")


def check_output_limit(length_count: int | None, total: int | None, source: str) -> Check:
    cid = "output-limit"
    if not total or length_count is None:
        return warned(cid, f"no responses to account for the output limit ({source})")
    fraction = length_count / total
    value = f"{length_count}/{total} responses ({fraction:.1%}) ended at the output limit"
    if fraction > LENGTH_INVALID_ABOVE:
        return failed(
            cid,
            INVALID,
            f"{value} ({source}) > {LENGTH_INVALID_ABOVE:.0%}: capped responses score "
            "about 0; raise max_model_len / the token budget and rerun",
        )
    if fraction > LENGTH_WARN_ABOVE:
        return warned(cid, f"{value} ({source}) > {LENGTH_WARN_ABOVE:.0%} (golden 1M run: 2.4%)")
    return passed(cid, f"{value} ({source})")


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=AGGREGATE_REL_TOL, abs_tol=AGGREGATE_ABS_TOL)


def check_aggregate(
    file_metrics: dict[str, Any] | None,
    pass_at_1: float | None,
    strata: dict[str, float],
) -> Check:
    """Compare the aggregate file's pass@1 and needle strata with the recomputation."""
    cid = "aggregate-agreement"
    if file_metrics is None:
        return failed(
            cid,
            INCOMPLETE,
            "no evaluator_rollouts_aggregate_metrics.json: the run did not reach its "
            "aggregation step",
        )
    if pass_at_1 is None:
        return warned(cid, "no rollouts to recompute the aggregate from")
    wanted = {"pass@1/accuracy": pass_at_1}
    wanted.update({f"n_needles={k}/pass@1/accuracy": v for k, v in strata.items()})
    stored_strata = {
        key
        for key in file_metrics
        if key.startswith("n_needles=") and key.endswith("/pass@1/accuracy")
    }
    problems: list[str] = []
    for key, ours in wanted.items():
        theirs = file_metrics.get(key)
        if isinstance(theirs, bool) or not isinstance(theirs, (int, float)):
            problems.append(f"{key} missing")
        elif not _close(float(theirs), ours):
            problems.append(f"{key} {float(theirs):.6g} in the file vs {ours:.6g} recomputed")
    for key in sorted(stored_strata - set(wanted)):
        problems.append(f"{key} in the file but no such stratum in the rollouts")
    if problems:
        return failed(
            cid,
            INVALID,
            "aggregate file disagrees with the rollouts: " + "; ".join(problems[:4]),
        )
    return passed(
        cid,
        f"pass@1 {pass_at_1:.2f} and {len(strata)} needle strata agree with the rollouts "
        f"(relative tolerance {AGGREGATE_REL_TOL:g})",
    )


# ------------------------------------------------------------------------- non-MRCR tasks


def _is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_results_file(present: bool) -> Check:
    if not present:
        return failed(
            "results-file",
            INCOMPLETE,
            "no artifacts/results.yml: the evaluation did not finish",
        )
    return passed("results-file", "artifacts/results.yml present and parses")


def check_score(scores: Sequence[Score]) -> Check:
    """Scores from evalkit.runs.results.iter_scores (a NaN or infinite value reads as None)."""
    cid = "score"
    if not scores:
        return failed(cid, INCOMPLETE, "results.yml holds no score value")
    bad = [s for s in scores if s.value is None]
    if bad:
        return failed(
            cid, INVALID, f"{len(bad)} score(s) missing or not a finite number, e.g. {bad[0].key}"
        )
    more = f" (+{len(scores) - 1} more)" if len(scores) > 1 else ""
    return passed(cid, f"{scores[0].key} = {scores[0].value}{more}")


# ------------------------------------------------------------------ gathering from a run


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
        checks.append(check_prefix_gate(agg.prefix_matched if agg.rollouts else None))
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


MARKS = {PASS: "[ok]  ", WARN: "[warn]", FAIL: "[FAIL]"}


def report_text(reports: Sequence[TaskReport]) -> str:
    lines: list[str] = []
    for report in reports:
        lines.append(f"{report.task} ({report.benchmark})")
        for check in report.checks:
            kind = f" -> {check.kind}" if check.kind else ""
            lines.append(f"  {MARKS[check.status]} {check.id}: {check.message}{kind}")
        if len(reports) > 1:
            lines.append(f"  task verdict: {report.verdict}")
    lines.append(f"verdict: {worst(r.verdict for r in reports)}")
    return "\n".join(lines) + "\n"
