"""Tau3-Banking's headline when results.yml carries none under its key: Gym's own
`mean/reward` for the Tau3 agent in the aggregate file, else the mean reward over the
rollouts (0-1, each episode 0 or 1) with the standard error of that mean."""

from __future__ import annotations

import math
import statistics
from typing import Any

from evalkit.benchmarks.tau3.facts import AGENT, SCALE, SCORE_KEY, SCORE_METRIC
from evalkit.errors import InputError
from evalkit.runs.run import Run


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def tau3_score(task: Run) -> dict[str, Any] | None:
    if not task.is_gym:
        return None
    rewards = task.scan().rewards if task.rollouts_path.is_file() else []
    n = len(rewards)
    stderr = statistics.stdev(rewards) / math.sqrt(n) if n > 1 else None
    if task.aggregate_path.is_file():
        from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries

        try:
            entries = read_aggregate_entries(task.aggregate_path)
        except InputError:
            entries = []  # corrupt: validate fails it; the rollouts still give a mean
        for name, metrics in entries:
            value = _number(metrics.get(SCORE_METRIC)) if name == AGENT else None
            if value is not None:
                return {
                    "benchmark": "tau3_banking",
                    "metric": SCORE_KEY,
                    "value": value,
                    "scale": SCALE,
                    "stderr": stderr,
                    "rollouts": n or None,
                }
    if not n:
        return None
    return {
        "benchmark": "tau3_banking",
        "metric": f"mean reward over evaluator_rollouts.jsonl ({AGENT})",
        "value": math.fsum(rewards) / n,
        "scale": SCALE,
        "stderr": stderr,
        "rollouts": n,
    }
