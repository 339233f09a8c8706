"""Checks on results.yml: present, and a finite score in it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from evalkit.checks.model import (
    INCOMPLETE,
    INVALID,
    Check,
    failed,
    passed,
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
from evalkit.runs.results import Score


def _is_finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_results_file(present: bool) -> Check:
    if not present:
        return failed(
            "results-file",
            INCOMPLETE,
            "no artifacts/results.yml: the evaluation did not finish",
        )
    return passed("results-file", "artifacts/results.yml present and parses")


def check_score(scores: Sequence[Score]) -> Check:
    """Scores from evalkit.runs.results.iter_scores (a NaN or infinite value reads as None)."""
    cid = "score"
    if not scores:
        return failed(cid, INCOMPLETE, "results.yml holds no score value")
    bad = [s for s in scores if s.value is None]
    if bad:
        return failed(
            cid, INVALID, f"{len(bad)} score(s) missing or not a finite number, e.g. {bad[0].key}"
        )
    more = f" (+{len(scores) - 1} more)" if len(scores) > 1 else ""
    return passed(cid, f"{scores[0].key} = {scores[0].value}{more}")


# ------------------------------------------------------------------ gathering from a run
