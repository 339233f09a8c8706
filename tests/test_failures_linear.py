"""Linear time on any log (issue 48): every failure signature, and the fatal-line reader,
on single-line logs built to make a backtracking pattern slow: each rule's needles
repeated, a real matching line (from the corpus) repeated without its end, and long runs
of the characters its patterns loop over. The fast tier uses 1 MB lines (the reader's
per-line cap, evalkit.inputs.MAX_LINE_BYTES); the full run writes 10 MB files through
the real reader."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml

from evalkit.checks.failures import RULES
from evalkit.checks.failures.scan import scan_lines, scan_logs

CORPUS = Path(__file__).parent / "data" / "failures_corpus"
MB = 1024 * 1024
NAMES = ("slurm-4100001.log", "server-0-4100001-0.log", "client-4100001.log", "proxy-4100001.log")


def _real_lines() -> list[str]:
    """The corpus lines some signature matches (their near-misses are the costly ones)."""
    lines = []
    for path in sorted(CORPUS.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()):
            for text in case["logs"].values():
                lines += [line for line in text.splitlines() if any(r.match(line) for r in RULES)]
    return lines


def _hostile(size: int) -> list[str]:
    """Lines of SIZE characters: repeated needles, near-misses, loop fodder."""
    pieces = [n + " " for rule in RULES for n in rule.needles]
    # a real line cut before its end, repeated: a pattern that matched it restarts often
    pieces += [line[: max(1, len(line) - 3)] for line in _real_lines()]
    pieces += [
        "a, ", "a,", "1", "1.", " ", "x", "'", "`", "(", "[rank0]: ", "(EngineCore pid=1) ",
        "ERROR 12-03 10:20:01 [core.py:1] ", "Error: ", "Traceback (most recent call last):",
        "pyxis:     ", "Detected 1 oom-kill event(s) in ", "Available parsers: ", "a.",
    ]  # fmt: skip
    return [(piece * (size // len(piece) + 1))[:size] for piece in pieces]


def test_every_pattern_on_a_long_line_costs_linear_time():
    from evalkit.checks.failures.fatal import FatalReader

    slowest, which = 0.0, ""
    for line in _hostile(MB):
        began = time.perf_counter()
        for rule in RULES:  # every rule on every line, whichever logs it reads
            rule.match(line)
        FatalReader().feed(1, line)
        took = time.perf_counter() - began
        if took > slowest:
            slowest, which = took, repr(line[:60])
    # a linear pass over 1 MB is a fraction of a second; backtracking took 26 s on main
    assert slowest < 2.0, f"{slowest:.2f}s on {which}"


@pytest.mark.slow
def test_ten_megabyte_single_line_logs_through_the_reader(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    hostile = _hostile(MB)
    for n, name in enumerate(NAMES):
        with open(logs / name, "w") as out:
            for k in range(10):
                out.write(hostile[(n * 10 + k) % len(hostile)])
            out.write("\n")
    assert all(os.path.getsize(logs / name) > 10 * MB - 16 for name in NAMES)
    began = time.perf_counter()
    scan_logs(logs, RULES)
    assert time.perf_counter() - began < 20.0


def test_a_hit_on_a_long_line_is_quoted_in_linear_time():
    """What a hit costs beyond its match: the quoted, redacted evidence."""
    line = ("Cannot access gated repo for url https://h/x. " * (MB // 46))[:MB]
    for name in NAMES:
        began = time.perf_counter()
        facts = scan_lines(name, [line], RULES)
        assert time.perf_counter() - began < 2.0
        assert "hf-gated-repo" in facts.hits or name.startswith("proxy-")
