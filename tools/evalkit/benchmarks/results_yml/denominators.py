"""A results.yml headline with its denominators, for a task whose harness leaves items
(benchmarks/harnesses.py): how many items, how many were scored as answers, how many
failed and why; and the standard error recomputed from the items.

simple-evals' own stderr with n_samples > 1 groups its scores in completion order
(`aggregate_results` reshapes the as-completed list): tests/data/simple_evals/repeats
reports 0.0470 where its items give 0.1124. The items' one is the standard error of the
mean of per-item means (repeats averaged first), sd with ddof=1 over sqrt(items).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from evalkit.runs.outcomes import Outcome, TaskOutcomes

# Failures that are not the model's answer: a setup, harness or endpoint problem scored 0.
# An unparsed reply is the model's own (it did not follow the answer format).
NOT_THE_ANSWER = frozenset(o for o in Outcome if o not in (Outcome.SCORED, Outcome.UNPARSED))

# How close the items' mean must be to the headline to share its scale (0-1, or x100).
_TOLERANCE = 1e-6


def item_means(outcomes: TaskOutcomes) -> dict[str, float]:
    """Per item id, the mean score over its repeats; a failed or missing item counts 0,
    as the harness counts it."""
    scores: dict[str, list[float]] = defaultdict(list)
    for item in outcomes.items:
        scores[item.item_id].append(item.score if item.score is not None else 0.0)
    return {key: sum(v) / len(v) for key, v in scores.items()}


def mean_and_stderr(values: list[float]) -> tuple[float | None, float | None]:
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n < 2:
        return mean, None
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def with_outcomes(entry: dict[str, Any], outcomes: TaskOutcomes | None) -> dict[str, Any]:
    """The score entry with `outcomes` (counts by cause) and, when the items reproduce the
    headline, `stderr` recomputed from them (results.yml's own kept as
    `stderr_results_yml`)."""
    if outcomes is None:
        return entry
    out = dict(entry)
    summary = outcomes.as_dict()
    means = list(item_means(outcomes).values())
    mean, stderr = mean_and_stderr(means)
    summary["unique_items"] = len(means)
    summary["repeats"] = len(outcomes.items) // len(means) if means else 0
    value = entry.get("value")
    factor = None
    if mean is not None and isinstance(value, (int, float)):
        for scale in (1.0, 100.0):
            if abs(mean * scale - value) <= _TOLERANCE * max(1.0, abs(value)):
                factor = scale
    summary["items_mean"] = mean
    summary["items_match_headline"] = factor is not None
    if factor is not None and stderr is not None:
        out["stderr_results_yml"] = entry.get("stderr")
        out["stderr"] = stderr * factor
        out["stderr_source"] = "items (repeats averaged per item, then sd/sqrt(n))"
    out["outcomes"] = summary
    return out
