"""Which test tier runs: `tests/run.sh --fast` sets EVALKIT_TEST_FAST=1 (the edit loop).

The fast tier runs every property test with a quarter of its examples (at least 5) and
every corpus-wide loop over a deterministic subset that keeps each kind of case; the full
run (`tests/run.sh`, no --fast) keeps the full example counts and whole corpora.
"""

from __future__ import annotations

import os

FAST = os.environ.get("EVALKIT_TEST_FAST") == "1"


def examples(full: int) -> int:
    """Hypothesis max_examples: `full` in the full run, a quarter (at least 5) when fast."""
    return max(5, full // 4) if FAST else full


def subset(cases, every: int = 3, keep=lambda case: False) -> list:
    """Every case in the full run; when fast, every `every`-th (the first included) and
    each case `keep` names (the ones that stand for a kind no other case covers)."""
    cases = list(cases)
    if not FAST:
        return cases
    return [case for i, case in enumerate(cases) if i % every == 0 or keep(case)]


def grid(rows, cols) -> list[tuple]:
    """Every (row, col) pair in the full run; when fast, the checkerboard half ((i + j)
    even), in which every row still meets about half the columns and every column half
    the rows."""
    return [
        (row, col)
        for i, row in enumerate(rows)
        for j, col in enumerate(cols)
        if not FAST or (i + j) % 2 == 0
    ]


def size(full: int) -> int:
    """An input size for a linear-time test: `full` in the full run, a tenth when fast.
    A tenth still separates linear from quadratic by minutes (the regexes these tests
    caught took 30 s on 100 kB), and the full run keeps the size the issue named."""
    return full if not FAST else max(1, full // 10)
