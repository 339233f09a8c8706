"""Tasks scored by the harness in results.yml: the documented key per task (upstream
evaluation skill, score table), with `stats.stderr` when present. Scales differ by task
and are reported, never converted."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalkit.errors import InputError
from evalkit.runs.results import iter_scores, load_results
from evalkit.runs.run import Run


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
    # simple-evals' GPQA Diamond (nel task simple_evals.gpqa_diamond): a 0-1 fraction,
    # read from a real nvidia-simple-evals 26.3 results.yml (tests/data/suite).
    _key("gpqa", r"gpqa_diamond_score_micro", "0-1"),
    # ... and with n_samples > 1 (read from a real run with n_samples 4, PROVENANCE.md).
    _key("gpqa", r"gpqa_diamond_score_micro_avg_of_(?P<n>\d+)", "0-1"),
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
    # Tau3-Banking: Gym's mean episode reward under the agent of NeMo Gym's
    # benchmarks/tau2/configs/banking_bm25_grep_artificial_analysis.yaml (pin e446e4f4).
    _key(
        "tau3_banking",
        r"tau2_banking_knowledge_bm25_grep_artificial_analysis_agent/(?:key_metrics/)?mean/reward",
        "0-1",
    ),
)


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


def other_score(
    task: Run, fallback: Callable[[Run], dict[str, Any] | None] | None = None
) -> dict[str, Any]:
    """The headline from results.yml; else FALLBACK's score (a Gym benchmark that reports
    none there); else a single score, unambiguous even for an unlisted task."""
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
    rubric = fallback(task) if fallback is not None else None
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
