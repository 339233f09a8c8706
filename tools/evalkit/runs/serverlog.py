"""What a vLLM server log says about KV-cache pressure and preemption.

The formats, read from the vLLM source at the version the templates pin (v0.26.0, the
V1 engine):
- `vllm/v1/metrics/loggers.py` `LoggingStatLogger.log()` prints, once per logging
  interval, `Engine 000: Avg prompt throughput: ... tokens/s, Avg generation
  throughput: ... tokens/s, Running: N reqs, Waiting: M reqs[, Deferred: D reqs]
  [, Preemptions: K], GPU KV cache usage: X%, Prefix cache hit rate: Y%[, ...]`.
  `Preemptions` appears only when the interval had some, and counts only that interval
  (the counter is reset after each line), so a run's total is the sum over its lines.
  With several data-parallel engines one logger may speak for all of them
  (`N Engines Aggregated: ...`); summing stays right either way.
- `vllm/v1/core/kv_cache_utils.py` prints at start-up `GPU KV cache size: N tokens` and
  `Maximum concurrency for L tokens per request: C.CCx` (thousands separated by commas).
- The V1 engine logs no line per preemption. The old (V0) engine did, in
  `vllm/core/scheduler.py`: `Sequence group ... is preempted by PreemptionMode.RECOMPUTE
  mode because there is not enough KV cache space. ... total_num_cumulative_preemption=N`,
  only for every 50th preemption; its stats line had `Pending:` where V1 has `Waiting:`.
  Both stay accepted for logs of older images.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalkit.secrets.quote import quote

STATS_MARK = "GPU KV cache usage:"
_WAITING = re.compile(r"(?:Waiting|Pending): (\d+) reqs")
_PREEMPTIONS = re.compile(r"Preemptions: (\d+)")
_KV_USAGE = re.compile(r"GPU KV cache usage: ([0-9.]+)%")
_KV_SIZE = re.compile(r"GPU KV cache size: ([0-9,]+) tokens")
_CONCURRENCY = re.compile(r"Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x")
_LEGACY = re.compile(r"Preempted|PreemptionMode\.\w+|is preempted by")
_LEGACY_TOTAL = re.compile(r"total_num_cumulative_preemption=(\d+)")


def _int(text: str) -> int:
    return int(text.replace(",", ""))


@dataclass
class VllmLogStats:
    """Figures gathered from one server log, line by line (`feed`)."""

    stats_lines: int = 0
    preemptions: int = 0  # summed over V1 stats lines
    legacy_lines: int = 0  # old-engine preemption warnings
    legacy_total: int = 0  # the largest total_num_cumulative_preemption they printed
    peak_kv_usage: float | None = None  # percent
    waiting_at_peak: int = 0
    kv_cache_tokens: int | None = None
    concurrency: tuple[int, float] | None = None  # (tokens per request, requests)
    first_preemption: tuple[int, str] | None = None  # (line number, text)

    def feed(self, line_no: int, line: str) -> None:
        if STATS_MARK in line:
            self._stats_line(line_no, line)
        elif "GPU KV cache size:" in line and (match := _KV_SIZE.search(line)):
            self.kv_cache_tokens = _int(match.group(1))
        elif "Maximum concurrency for" in line and (match := _CONCURRENCY.search(line)):
            self.concurrency = (_int(match.group(1)), float(match.group(2)))
        if "reempt" in line and _LEGACY.search(line):
            self.legacy_lines += 1
            if total := _LEGACY_TOTAL.search(line):
                self.legacy_total = max(self.legacy_total, int(total.group(1)))
            self._note(line_no, line)

    def _stats_line(self, line_no: int, line: str) -> None:
        usage = _KV_USAGE.search(line)
        if usage is None:
            return
        self.stats_lines += 1
        value = float(usage.group(1))
        waiting = _WAITING.search(line)
        if self.peak_kv_usage is None or value > self.peak_kv_usage:
            self.peak_kv_usage = value
            self.waiting_at_peak = int(waiting.group(1)) if waiting else 0
        if (count := _PREEMPTIONS.search(line)) and int(count.group(1)):
            self.preemptions += int(count.group(1))
            self._note(line_no, line)

    def _note(self, line_no: int, line: str) -> None:
        if self.first_preemption is None:
            self.first_preemption = (line_no, quote(line))

    @property
    def preempted(self) -> int:
        """Preemptions seen: the V1 sum, else the old engine's own running total
        (or, without one, its warning lines)."""
        return self.preemptions or self.legacy_total or self.legacy_lines

    def merge(self, other: VllmLogStats) -> None:
        """Add another log's figures (several instances or resumed jobs make one run)."""
        self.stats_lines += other.stats_lines
        self.preemptions += other.preemptions
        self.legacy_lines += other.legacy_lines
        self.legacy_total += other.legacy_total
        if other.peak_kv_usage is not None and (
            self.peak_kv_usage is None or other.peak_kv_usage > self.peak_kv_usage
        ):
            self.peak_kv_usage = other.peak_kv_usage
            self.waiting_at_peak = other.waiting_at_peak
        if self.kv_cache_tokens is None:
            self.kv_cache_tokens = other.kv_cache_tokens
        if self.concurrency is None:
            self.concurrency = other.concurrency
        if self.first_preemption is None:
            self.first_preemption = other.first_preemption
