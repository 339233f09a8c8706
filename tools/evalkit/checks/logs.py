"""Checks on the client and server logs: the Gym pin, the pre-command, preemption, errors
and HTTP retries (each log digested once by runs.logscan)."""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.model import (
    INVALID,
    Check,
    failed,
    passed,
    warned,
)
from evalkit.runs.logscan import (  # noqa: F401  (status and tests read them from here)
    GYM_COMMIT_BANNER,
    MAX_HITS,
    SHA_PATTERN,
    LogScan,
    pre_cmd_failure,
    read_log,
    scan_log,
)
from evalkit.runs.serverlog import VllmLogStats


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
