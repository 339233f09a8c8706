"""The headline score of each task in a run, with its scale.

MRCR: `artifacts/evaluator_rollouts_aggregate_metrics.json`, the entry whose agent name
matches the run's variant (never results.yml, which holds no MRCR score). Other tasks:
results.yml, the documented key per task (upstream evaluation skill, score table), with
`stats.stderr` when present. Scales differ by task and are reported, never converted.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from evalkit.errors import InputError
from evalkit.mrcr.aggregate import read_aggregate_entries, select_agent
from evalkit.runs.layout import TaskRun
from evalkit.runs.results import iter_scores, load_results
from evalkit.runs.run import as_run
from evalkit.runs.settings import RunSettings


@dataclass(frozen=True)
class HeadlineKey:
    benchmark: str
    pattern: re.Pattern  # matched at the end of the flattened key; group "n" = repeats
    scale: str


def _key(benchmark: str, pattern: str, scale: str = "0-100") -> HeadlineKey:
    return HeadlineKey(benchmark, re.compile(f"(?:^|_){pattern}$"), scale)


# Key per task (exporter-flattened names); `N` in a name = the number of repeats, the
# highest one present wins. Source: the upstream evaluation skill's score table.
HEADLINE_KEYS: tuple[HeadlineKey, ...] = (
    _key("gpqa", r"gpqa_pass_at_1_avg-of-(?P<n>\d+)_symbolic_correct"),
    _key("gpqa", r"gpqa_pass_at_1_symbolic_correct"),
    _key("hle", r"hle_pass_at_1_judge_correct"),
    _key("ifbench", r"ifbench_pass_at_1_avg-of-(?P<n>\d+)_prompt_loose_accuracy"),
    _key("aa_lcr", r"aalcr_pass_at_1_avg-of-(?P<n>\d+)_judge_correct"),
    _key("mmmu_pro", r"mmmu-pro_pass_at_1_symbolic_correct"),
    _key("omniscience", r"omniscience_pass_at_1_avg-of-(?P<n>\d+)_judge_omni_index", "-100..100"),
    _key("scicode", r"scicode_pass_at_1_avg-of-(?P<n>\d+)_subtask_accuracy"),
    _key("tau2_telecom", r"tau2_bench_telecom_pass_at_1", "0-1"),
    _key("aime_2025", r"AIME_2025_score_micro_avg_of_(?P<n>\d+)", "0-1"),
    _key("livecodebench", r"livecodebench_pass_at_1_avg-of-(?P<n>\d+)_accuracy"),
    _key("mmlu_pro", r"mmlu-pro_pass_at_1_symbolic_correct"),
    _key("gdpval", r"gdpval_stirrup_agent/(?:key_metrics/)?comparison/normalized_elo", "0-1"),
)


class _Group(msgspec.Struct):
    num_rollouts: int | None = None


class _RolloutCounts(msgspec.Struct):
    agent_ref: dict[str, Any] | None = None
    group_level_metrics: list[_Group] | None = None


def _rollouts_in_aggregate(path: Path, agent: str) -> int | None:
    try:
        entries = msgspec.json.decode(path.read_bytes(), type=list[_RolloutCounts])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
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
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
    return lines


def _metric(metrics: dict[str, Any], key: str) -> float | None:
    value = metrics.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def is_mrcr(task: TaskRun, settings: RunSettings | None = None) -> bool:
    """Whether a task run is MRCR (see evalkit.runs.run.Run.is_mrcr); `settings` is kept
    for callers that read them already."""
    del settings  # the run reads its own settings once
    return as_run(task).is_mrcr


def mrcr_score(task: TaskRun) -> dict[str, Any]:
    task = as_run(task)
    settings = task.settings
    if not task.aggregate_path.is_file():
        raise InputError(
            "no aggregate metrics file (the run did not finish, or the path is not a "
            "NeMo Gym run); `evalkit regrade` can recompute the score from the rollouts",
            task.aggregate_path,
        )
    entries = read_aggregate_entries(task.aggregate_path)
    agent, metrics = select_agent(entries, settings.agent, task.aggregate_path)
    strata = {}
    for needles in ("2", "4", "8"):
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


def headline_from_results(document: dict[str, Any]) -> tuple[HeadlineKey, Any] | None:
    """The documented headline score in a results.yml document (highest N wins)."""
    best = None
    for score in iter_scores(document):
        for rank, spec in enumerate(HEADLINE_KEYS):
            match = spec.pattern.search(score.key)
            if not match or score.value is None:
                continue
            repeats = int(match.group("n")) if "n" in match.groupdict() else 0
            order = (-rank, repeats)  # earlier table rows first, then more repeats
            if best is None or order > best[0]:
                best = (order, spec, score)
    return None if best is None else (best[1], best[2])


def other_score(task: TaskRun) -> dict[str, Any]:
    task = as_run(task)
    entry = {
        "task": task.name,
        "benchmark": None,
        "metric": None,
        "value": None,
        "scale": None,
        "stderr": None,
    }
    if not task.results_path.is_file():
        raise InputError("no results.yml (the task did not finish?)", task.results_path)
    document = load_results(task.results_path)
    found = headline_from_results(document)
    if found is not None:
        spec, score = found
        entry.update(
            benchmark=spec.benchmark,
            metric=score.key,
            value=score.value,
            scale=spec.scale,
            stderr=score.stderr,
        )
        return entry
    rubric = gym_rubric_score(task)
    if rubric is not None:
        entry.update(rubric)
        return entry
    scores = [s for s in iter_scores(document) if s.value is not None]
    if len(scores) == 1:  # a single score is unambiguous even for an unlisted task
        entry.update(
            benchmark="unknown",
            metric=scores[0].key,
            value=scores[0].value,
            scale="unknown",
            stderr=scores[0].stderr,
        )
    else:
        entry["available"] = [s.key for s in scores][:20]
    return entry


def gym_rubric_score(task: TaskRun) -> dict[str, Any] | None:
    """GDPVal in rubric mode reports no headline key: its score is the mean `reward` over
    the rollouts (0-1), with the standard error of that mean (sd with ddof=1 over sqrt(n))."""
    task = as_run(task)
    if not task.is_gym or not task.rollouts_path.is_file():
        return None
    scan = task.rollout_pass
    rewards = scan.rewards
    if not rewards or not any("gdpval" in name for name in scan.agents):
        return None
    n = len(rewards)
    mean = math.fsum(rewards) / n
    stderr = statistics.stdev(rewards) / math.sqrt(n) if n > 1 else None
    return {
        "benchmark": "gdpval",
        "metric": "mean reward over evaluator_rollouts.jsonl (rubric mode)",
        "value": mean,
        "scale": "0-1",
        "stderr": stderr,
        "rollouts": n,
    }


def task_score(task: TaskRun) -> dict[str, Any]:
    task = as_run(task)
    return mrcr_score(task) if task.is_mrcr else other_score(task)
