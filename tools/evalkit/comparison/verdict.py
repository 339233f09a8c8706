"""The verdict rule for one task (a delta in points and its 95 % interval against a
margin) and how several verdicts combine."""

from __future__ import annotations

import math
from collections.abc import Iterable

MIN_PAIRED_FRACTION = 0.90
VERDICTS = ("no_regression", "inconclusive", "unverified", "regression", "not_comparable")
# Severity used to combine several tasks into one verdict (highest wins). `unverified`: a
# check that could hide a wrong delta lacked its evidence (comparison/suite.py `_settle`).
_SEVERITY = {
    "no_regression": 0,
    "inconclusive": 1,
    "unverified": 2,
    "not_comparable": 3,
    "regression": 4,
}


def decide(delta: float, ci95: tuple[float, float], margin: float) -> tuple[str, str]:
    """(verdict, reason) for a delta in points (cand - base) and its 95 % interval."""
    lo, hi = ci95
    if not all(math.isfinite(v) for v in (delta, lo, hi)):
        return "inconclusive", "no interval (too few items to estimate the spread)"
    if hi < 0 and delta < -margin:
        return (
            "regression",
            f"interval [{lo:.2f}, {hi:.2f}] lies below 0 and delta {delta:+.2f} "
            f"is worse than -{margin:g} points",
        )
    if lo >= -margin:
        return (
            "no_regression",
            f"interval lower bound {lo:.2f} >= -{margin:g} points",
        )
    return (
        "inconclusive",
        f"interval [{lo:.2f}, {hi:.2f}] reaches below -{margin:g} points but does not "
        f"establish a regression beyond the margin",
    )


def combine(verdicts: Iterable[str]) -> str:
    found = list(verdicts)
    return max(found, key=_SEVERITY.__getitem__) if found else "not_comparable"
