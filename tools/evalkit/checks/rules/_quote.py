"""Quoting log hits: shared by the log rules (not a rule)."""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.runs.logscan import MAX_HITS, LogScan


def quote(scans: Sequence[LogScan], bucket: str) -> tuple[int, str]:
    """(hits in BUCKET over SCANS, the first few as `file:line: text`)."""
    total = sum(s.counts.get(bucket, 0) for s in scans)
    shown = [f"{s.name}:{n}: {text}" for s in scans for n, text in getattr(s, bucket)]
    return total, "; ".join(shown[:MAX_HITS])


def log_reported(ev, logs: Sequence[LogScan]) -> bool:
    """A log check reports on a finished MRCR run even without its log (its message says
    so); elsewhere only when the log exists."""
    return bool(logs) or (ev.mrcr and not ev.growing)
