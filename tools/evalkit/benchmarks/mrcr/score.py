"""MRCR's headline: `artifacts/evaluator_rollouts_aggregate_metrics.json`, the entry whose
agent name matches the run's variant (never results.yml, which holds no MRCR score), with
its needle strata."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries, select_agent
from evalkit.benchmarks.mrcr.variants import agent_of
from evalkit.errors import InputError
from evalkit.inputs import open_binary, read_bytes
from evalkit.runs.run import Run

NEEDLE_STRATA = ("2", "4", "8")


class _Group(msgspec.Struct):
    num_rollouts: int | None = None


class _RolloutCounts(msgspec.Struct):
    agent_ref: dict[str, Any] | None = None
    group_level_metrics: list[_Group] | None = None


def _rollouts_in_aggregate(path: Path, agent: str) -> int | None:
    try:
        entries = msgspec.json.decode(read_bytes(path), type=list[_RolloutCounts])
    except (InputError, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the metrics were read already; a count is a bonus
    for entry in entries:
        if (entry.agent_ref or {}).get("name") == agent and entry.group_level_metrics:
            counts = [g.num_rollouts for g in entry.group_level_metrics]
            if all(isinstance(c, int) for c in counts):
                return sum(counts)
    return None


def _count_lines(path: Path) -> int | None:
    if not path.is_file():
        return None
    lines = 0
    with open_binary(path, "a rollouts .jsonl file") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
    return lines


def _metric(metrics: dict[str, Any], key: str) -> float | None:
    value = metrics.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def mrcr_score(task: Run) -> dict[str, Any]:
    settings = task.settings
    if not task.aggregate_path.is_file():
        raise InputError(
            "no aggregate metrics file (the run did not finish, or the path is not a "
            "NeMo Gym run); `evalkit regrade` can recompute the score from the rollouts",
            task.aggregate_path,
        )
    entries = read_aggregate_entries(task.aggregate_path)
    agent, metrics = select_agent(entries, agent_of(settings), task.aggregate_path)
    strata = {}
    for needles in NEEDLE_STRATA:
        strata[needles] = _metric(metrics, f"n_needles={needles}/pass@1/accuracy")
    rollouts = _rollouts_in_aggregate(task.aggregate_path, agent)
    if rollouts is None:
        rollouts = _count_lines(task.rollouts_path)
    return {
        "task": task.name,
        "benchmark": "mrcr",
        "agent": agent,
        "variant": settings.variant,
        "pass_at_1": _metric(metrics, "pass@1/accuracy"),
        "strata": strata,
        "prefix_matched": _metric(metrics, "mean/prefix_matched"),
        "mean_reward": _metric(metrics, "mean/reward"),
        "rollouts": rollouts,
        "scale": "0-100",
        "source": str(task.aggregate_path),
    }
