"""vLLM did not preempt requests for lack of KV cache.

## What it does
Sums `Preemptions: K` over the vLLM stats lines of every `logs/server-*.log` (old-engine
`Preempted` / `PreemptionMode.RECOMPUTE` warnings count too) and names the peak GPU KV
cache usage and how many full-length requests the cache holds. Any task with a server
log; a finished MRCR run without one says there was nothing to scan.

## Why is this bad
Severity: warning: vLLM recomputes a preempted request, so the scores stay valid, but the
run is slower than it should be and wastes GPU hours.

## Example
`8 vLLM preemption(s) in the server logs (peak GPU KV cache usage 99.9%; the KV cache
holds 1.10x requests of 1,100,000 tokens)`.

## Fix
Next time lower `--max-num-seqs` (or the parallelism) to what the KV cache holds
(`evalkit size` gives the number).
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import Check, passed, warned
from evalkit.checks.rule import Rule
from evalkit.checks.rules._quote import log_reported
from evalkit.runs.logscan import LogScan
from evalkit.runs.serverlog import VllmLogStats

ID = "preemption"


def check_preemption(server_logs: Sequence[LogScan]) -> Check:
    """Preemptions summed over the vLLM stats lines of every server log (old-engine
    warnings also count); the message gives the count, the peak KV usage and the fix."""
    if not server_logs:
        return passed(ID, "no server logs to scan")
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
            ID,
            f"{count} vLLM preemption(s) in the server logs ({peak}{sizing}): the KV cache "
            "could not hold the concurrent requests, so vLLM recomputed them (slower, "
            "scores still valid); next time lower --max-num-seqs (or the parallelism) to "
            f"what the KV cache holds; first at {first}",
        )
    if not total.stats_lines:
        return passed(ID, "no preemption in the server logs (no vLLM stats lines)")
    pressure = ""
    if total.peak_kv_usage is not None and total.peak_kv_usage >= 99.0 and total.waiting_at_peak:
        pressure = f" with {total.waiting_at_peak} requests waiting (KV-bound, not yet preempting)"
    return passed(
        ID,
        f"no preemption in {total.stats_lines} vLLM stats lines ({peak}{pressure}{sizing})",
    )


def judge(ev: Evidence) -> Check | None:
    return check_preemption(ev.server) if log_reported(ev, ev.server) else None


RULE = Rule(ID, "no KV-cache preemption", judge, __doc__ or "")
