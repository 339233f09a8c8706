"""Following a growing run incrementally: the rollouts appended since the last refresh,
and each log's new lines (one streaming reader with a per-line cap, runs.tail)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalkit.benchmarks.mrcr.leaks import leaked_reasoning
from evalkit.inputs import MAX_LINE_BYTES
from evalkit.runs.jobtimes import (  # noqa: F401  (tests and callers read them from here)
    chain_end,
    job_start,
    jobs_in_chain,
    progress_count,
    read_run_sub,
    walltime_from_run_sub,
)
from evalkit.runs.logscan import GYM_COMMIT_BANNER, LogScan, scan_log
from evalkit.runs.rollouts import decode_record, join_message_text
from evalkit.runs.tail import Tail


@dataclass
class RolloutTally:
    """What validate's checks need from the rollouts, kept up to date line by line.

    Same counting rules as validate: a (task, rollout) slot counts once (the first record
    seen), a repeat with another reward or item is conflicting; the prefix share is over
    unique records, the output-limit share over every record."""

    records: int = 0
    incomplete: int = 0
    duplicates: int = 0
    conflicting: int = 0
    matched: int = 0
    matched_of: int = 0
    reasoning_leaks: int = 0  # every record, as validate's pass and regrade count them
    agent: str | None = None
    _seen: dict[tuple[int, int], tuple[float | None, int]] = field(default_factory=dict)

    @property
    def unique(self) -> int:
        return len(self._seen)

    def add(self, line_no: int, raw: bytes, path: Path) -> None:
        if not raw.strip():
            return
        rec = decode_record(raw, path, line_no)  # the same refusals as validate's pass
        self.records += 1
        resp = rec.response
        details = resp.incomplete_details if resp is not None else None
        if details is not None and details.reason is not None:
            self.incomplete += 1
        if resp is not None and resp.output:
            self.reasoning_leaks += leaked_reasoning(join_message_text(resp.output))
        if self.agent is None and rec.agent_ref is not None and rec.agent_ref.name:
            self.agent = rec.agent_ref.name
        task = rec._ng_task_index if rec._ng_task_index is not None else line_no - 1
        slot = (task, rec._ng_rollout_index or 0)
        item = hash((rec.random_string_to_prepend, rec.n_needles, rec.expected_answer))
        if slot in self._seen:
            self.duplicates += 1
            if self._seen[slot] != (rec.reward, item):
                self.conflicting += 1
            return
        self._seen[slot] = (rec.reward, item)
        if rec.prefix_matched is not None:
            self.matched_of += 1
            self.matched += 1 if rec.prefix_matched else 0


# --------------------------------------------------------------------------- log follow


class LogFollower:
    """Validate's LogScan for one growing log, one scan per batch of appended lines."""

    def __init__(self, path: Path) -> None:
        self.tail = Tail(path, line_cap=MAX_LINE_BYTES)
        self.scans: list[LogScan] = []
        self.banner_pending = False  # the last line read is the banner; its pin is to come

    def refresh(self) -> None:
        new = self.tail.lines()
        if self.tail.restarted:
            self.scans.clear()
        first = self.tail.line_no + 1
        seen = 0

        def texts():
            """The appended lines, streamed (a 300 MB log is never held whole), holding
            back one line: the pin is the line after the banner, so a trailing banner
            is handed back to the tail for the next read."""
            nonlocal seen
            held = None
            for _, raw in new:
                if held is not None:
                    seen += 1
                    yield held.decode("utf-8", errors="replace")
                held = raw
            self.banner_pending = held is not None and GYM_COMMIT_BANNER.encode() in held
            if self.banner_pending:
                self.tail.offset -= self.tail.last_length
                self.tail.line_no -= 1
            elif held is not None:
                seen += 1
                yield held.decode("utf-8", errors="replace")

        scan = scan_log(self.tail.path.name, texts(), first_line=first)
        if seen:
            self.scans.append(scan)


# ------------------------------------------------------------------------- times
