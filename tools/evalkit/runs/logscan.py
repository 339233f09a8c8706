"""One pass over a log file: what validate's and status's checks need from it.

Logs are diagnostics, not inputs with a format: they are streamed line by line with the
per-line cap of evalkit.inputs.iter_log_lines, undecodable bytes replaced. Every pattern
here runs in time linear in the line (a log line can be megabytes of one token).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.runs.serverlog import STATS_MARK, VllmLogStats
from evalkit.secrets.quote import quote

GYM_COMMIT_BANNER = "=== NeMo Gym commit ==="
MAX_HITS = 3  # log lines quoted per check; the count covers the rest


@dataclass
class LogScan:
    """What the checks need from one log file, gathered in a single pass."""

    name: str
    commits: list[tuple[int, str]] = field(default_factory=list)  # line after each banner
    pre_cmd: list[tuple[int, str]] = field(default_factory=list)
    preemption: list[tuple[int, str]] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    retries: list[tuple[int, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    vllm: VllmLogStats = field(default_factory=VllmLogStats)  # stats lines, KV sizing

    def add(self, bucket: str, line_no: int, text: str) -> None:
        self.counts[bucket] = self.counts.get(bucket, 0) + 1
        hits = getattr(self, bucket)
        if len(hits) < MAX_HITS:
            hits.append((line_no, quote(text)))  # redacted whole, then cut


# A pip/uv line such as "+ tiktoken==0.9.0" is healthy; only a failure naming it counts.
# Substring tests, not `tiktoken.*error|error.*tiktoken` (quadratic on a long line).
_PRE_CMD_FAILURES = ("error", "fail", "cannot", "unable")


def pre_cmd_failure(line: str) -> bool:
    low = line.lower()
    at = low.find("tiktoken")
    if "modulenotfounderror" in low:
        return True
    if at < 0:
        return False
    tail = low[at + len("tiktoken") :]  # "not found"/"no module" count after the name
    return any(w in low for w in _PRE_CMD_FAILURES) or "not found" in tail or "no module" in tail


class _Needled:
    """A pattern tried only on lines holding one of its literal needles: a substring test
    costs a fraction of a regex search, and nearly every log line matches nothing. Each
    alternative of `pattern` contains one of the needles, so the answer is the same."""

    def __init__(self, needles: tuple[str, ...], pattern: str) -> None:
        self.needles = needles
        self.regex = re.compile(pattern)

    def search(self, line: str) -> re.Match | None:
        for needle in self.needles:
            if needle in line:
                return self.regex.search(line)
        return None


# The old (V0) engine's own preemption warnings; vLLM V1 (the pinned v0.26) reports them
# only as `Preemptions: K` in its stats lines (evalkit.runs.serverlog).
PREEMPTION_PATTERN = _Needled(
    ("Preempted", "PreemptionMode.RECOMPUTE", "is preempted by"),
    r"Preempted|PreemptionMode\.RECOMPUTE|is preempted by",
)
ERROR_PATTERN = _Needled(
    ("Traceback (most recent call last)", "OOM", "OutOfMemoryError", "out of memory", "Killed"),
    r"Traceback \(most recent call last\)|\bOOM\b|OutOfMemoryError|out of memory|\bKilled\b",
)
# NeMo Gym's client retries (nemo_gym/server_utils.py at the MRCR pin): `[request_retry
# ... retry=N ...]`, "Hit an exception while making a request (try N)", and a server's
# "Caught an exception printed above in ..." that answers HTTP 500.
RETRY_PATTERN = _Needled(
    ("[request_retry ", "Hit an exception while making a request", "ClientResponseError",
     "Caught an "),
    r"\[request_retry |Hit an exception while making a request|ClientResponseError"
    r"|Caught an (?:unknown )?exception printed above",
)  # fmt: skip
SHA_PATTERN = re.compile(r"\b[0-9a-f]{7,40}\b")
PREEMPTIONS_IN_STATS = re.compile(r"Preemptions: [1-9]")


def scan_log(name: str, lines: Iterable[str], first_line: int = 1) -> LogScan:
    """`first_line`: the number of the first line given (a scan of appended lines)."""
    scan = LogScan(name)
    after_banner = False
    for line_no, line in enumerate(lines, start=first_line):
        if after_banner and line.strip():
            scan.commits.append((line_no, quote(line)))
            after_banner = False
        if GYM_COMMIT_BANNER in line:
            after_banner = True
            continue
        if pre_cmd_failure(line):
            scan.add("pre_cmd", line_no, line)
        scan.vllm.feed(line_no, line)
        if PREEMPTION_PATTERN.search(line) or (
            STATS_MARK in line and PREEMPTIONS_IN_STATS.search(line)
        ):
            scan.add("preemption", line_no, line)
        if ERROR_PATTERN.search(line):
            scan.add("errors", line_no, line)
        if RETRY_PATTERN.search(line):
            scan.add("retries", line_no, line)
    if after_banner:  # banner on the last line: nothing printed after it
        scan.commits.append((0, ""))
    return scan


def read_log(path: Path) -> LogScan:
    """Streamed line by line with the per-line cap (evalkit.inputs.iter_log_lines)."""
    from evalkit.inputs import iter_log_lines

    return scan_log(path.name, iter_log_lines(path))
