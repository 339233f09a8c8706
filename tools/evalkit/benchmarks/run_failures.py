"""Run-level failures of a task that is not on NeMo Gym, for every harness reader.

`run_failures(run)` reads what nemo-evaluator and the client log say about the run as a
whole, each as a `RunFailure` naming its file:

- `results.yml` missing: nemo-evaluator writes it last, so the run never finished (HTTP
  5xx/400 are retried, then abort the whole run);
- `eval_factory_metrics.json` `response_stats` (nemo-evaluator 0.2.8,
  `adapters/interceptors/response_stats_interceptor.py`): requests that did not succeed
  (`count - successful_count`, with the non-200 `status_codes`) and responses cut at the
  output limit (`finish_reason.length`);
- its `reasoning` block (written with `process_reasoning_traces`,
  `reasoning_interceptor.py`): reasoning started and never finished, the `<think>` cut
  at the limit that the interceptor passes on as the answer;
- the client log: request retries (lm-eval's "API request failed ... Retrying...", the
  OpenAI client's "Retrying request", Gym-style retry lines) and "maximum context length"
  errors (vLLM's 400 for a prompt plus max_tokens over the model's context).

Counts here are evidence beside the per-item outcomes, not items: a harness reader adds
them to `TaskOutcomes.run_failures` unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import iter_log_lines, load_json
from evalkit.runs.logscan import RETRY_PATTERN
from evalkit.runs.outcomes import Outcome, RunFailure
from evalkit.runs.run import Run

CLIENT_RETRY = re.compile(
    r"Retrying\.\.\.|Retrying request to|\bretrying\b|" + RETRY_PATTERN.regex.pattern, re.IGNORECASE
)
CONTEXT_LENGTH = re.compile(r"maximum context length", re.IGNORECASE)


def _rel(run: Run, path: Path) -> str:
    try:
        return str(path.relative_to(run.task_dir))
    except ValueError:
        return path.name


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def metrics_failures(run: Run) -> list[RunFailure]:
    """From eval_factory_metrics.json; none when it is absent or not the expected shape."""
    path = run.metrics_path
    if not path.is_file():
        return []
    data = load_json(path)
    if not isinstance(data, dict):
        return []
    where = _rel(run, path)
    found: list[RunFailure] = []
    stats = data.get("response_stats")
    if isinstance(stats, dict):
        failed = _int(stats.get("count")) - _int(stats.get("successful_count"))
        codes = stats.get("status_codes") if isinstance(stats.get("status_codes"), dict) else {}
        bad = {str(k): _int(v) for k, v in codes.items() if str(k) != "200" and _int(v)}
        if failed > 0 or bad:
            listed = ", ".join(f"HTTP {k}: {v}" for k, v in sorted(bad.items())) or "no codes"
            found.append(
                RunFailure(
                    Outcome.ENDPOINT_ERROR,
                    f"{where}: response_stats count {_int(stats.get('count'))}, "
                    f"successful {_int(stats.get('successful_count'))} ({listed})",
                    max(failed, sum(bad.values())),
                )
            )
        reasons = stats.get("finish_reason") if isinstance(stats.get("finish_reason"), dict) else {}
        length = _int(reasons.get("length"))
        if length:
            found.append(
                RunFailure(
                    Outcome.TRUNCATED,
                    f"{where}: response_stats finish_reason length {length} "
                    f"(of {sum(_int(v) for v in reasons.values())})",
                    length,
                )
            )
    reasoning = data.get("reasoning")
    if isinstance(reasoning, dict):
        unfinished = _int(reasoning.get("reasoning_unfinished_count"))
        if unfinished:
            found.append(
                RunFailure(
                    Outcome.TRUNCATED,
                    f"{where}: reasoning started {_int(reasoning.get('reasoning_started_count'))},"
                    f" finished {_int(reasoning.get('reasoning_finished_count'))}, unfinished "
                    f"{unfinished} (an unfinished <think> is passed on as the answer)",
                    unfinished,
                )
            )
    return found


def log_failures(run: Run) -> list[RunFailure]:
    """Retry and context-length lines of the client logs, one entry per kind and log,
    the first line quoted (redacted when rendered) and the rest counted."""
    if run.logs_dir is None or not run.logs_dir.is_dir():
        return []
    found: list[RunFailure] = []
    for log in sorted(run.logs_dir.glob("client-*.log")):
        first: dict[str, tuple[int, str]] = {}
        counts = {"context": 0, "retry": 0}
        try:
            for line_no, line in enumerate(iter_log_lines(log), start=1):
                kind = (
                    "context"
                    if CONTEXT_LENGTH.search(line)
                    else "retry"
                    if CLIENT_RETRY.search(line)
                    else None
                )
                if kind is not None:
                    counts[kind] += 1
                    first.setdefault(kind, (line_no, line.strip()[:200]))
        except InputError:
            continue
        where = _rel(run, log)
        for kind, what in (("context", "maximum context length"), ("retry", "request retries")):
            if counts[kind]:
                line_no, text = first[kind]
                found.append(
                    RunFailure(
                        Outcome.ENDPOINT_ERROR,
                        f"{where}:{line_no}: {what} ({counts[kind]} lines): {text}",
                        counts[kind],
                    )
                )
    return found


def run_failures(run: Run) -> list[RunFailure]:
    """Every run-level failure of a non-Gym task: missing results, metrics, client log."""
    found: list[RunFailure] = []
    if not run.results_path.is_file():
        found.append(
            RunFailure(
                Outcome.MISSING,
                f"{_rel(run, run.results_path)} absent: nemo-evaluator writes it last, so "
                "the run stopped before its end (an endpoint error aborts the whole run)",
            )
        )
    try:
        found += metrics_failures(run)
    except InputError as err:
        found.append(RunFailure(Outcome.MISSING, f"unreadable: {err}"))
    return found + log_failures(run)


__all__ = ["CLIENT_RETRY", "CONTEXT_LENGTH", "log_failures", "metrics_failures", "run_failures"]
