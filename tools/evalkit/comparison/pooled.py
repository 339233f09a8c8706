"""Several independent runs of one task per side, pooled (issue 49).

Some tasks take their variance from independent fresh submissions rather than repeats:
SciCode keeps `num_repeats: 1` and is run at least 8 times per side, the comparison made
on the runs' mean with its standard error (upstream ModelOpt evaluation skill, PR #2327,
merged 2026-09-03; `../shared/facts/upstream-newest-branches.md`). A side folder holding
several invocations of one task is read that way: each valid run is one observation, the
side's score is their mean, SE = sd / sqrt(k), and the two sides are compared unpaired
(Welch's t). Runs that replay one another (a shared response cache, a copied directory)
are not independent: the row is not comparable. Below the task's minimum of valid runs
there is no pass, and the row says how many runs to submit and with which command.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

from evalkit.comparison import stats
from evalkit.comparison.gate import Margin
from evalkit.comparison.sides import SuiteTask, to_points
from evalkit.comparison.task_trust import reuse_check, side_of_run
from evalkit.comparison.trust import FAIL
from evalkit.comparison.verdict import decide
from evalkit.errors import InputError
from evalkit.runs.layout import task_name

# Valid independent runs per side a comparison needs (upstream PR #2327 for SciCode);
# any other task pooled from several runs needs two, the least that gives a spread.
MIN_RUNS = {"scicode": 8}
DEFAULT_MIN_RUNS = 2


def split_runs(tasks: list[SuiteTask], label) -> tuple[list[SuiteTask], dict[str, list]]:
    """(tasks held once, {label: runs} for each task held more than once)."""
    groups: dict[str, list[SuiteTask]] = {}
    for task in tasks:
        groups.setdefault(label(task), []).append(task)
    single = [runs[0] for runs in groups.values() if len(runs) == 1]
    return single, {name: runs for name, runs in groups.items() if len(runs) > 1}


def pair_pools(
    base: list[SuiteTask],
    base_pools: dict[str, list[SuiteTask]],
    cand: list[SuiteTask],
    cand_pools: dict[str, list[SuiteTask]],
    label,
) -> dict[str, tuple[list[SuiteTask], list[SuiteTask]]]:
    """{label: (base runs, candidate runs)} for each task held several times on a side and
    at least once on the other; the singles it takes are removed from BASE and CAND."""
    out = {}
    for name in sorted(base_pools.keys() | cand_pools.keys()):
        b = base_pools.get(name) or [t for t in base if label(t) == name]
        c = cand_pools.get(name) or [t for t in cand if label(t) == name]
        if b and c and len(b) != len(c) and minimum_runs(name) == DEFAULT_MIN_RUNS:
            several = b if len(b) > len(c) else c
            listed = ", ".join(t.view.task_dir.parent.name for t in several[:10])
            raise InputError(
                f"{name} is there {len(several)} times on one side and {min(len(b), len(c))} "
                f"on the other ({listed}): pass one invocation directory per side, or as many "
                "independent runs on each side to pool them",
                several[0].view.task_dir.parent.parent,
            )
        if b and c:
            out[name] = (b, c)
            for side, runs in ((base, b), (cand, c)):
                side[:] = [t for t in side if t not in runs]
        else:  # on one side only: each run reads as its own task ("only in ...")
            (base if b else cand).extend(b or c)
    return out


def run_score(task: SuiteTask) -> float | None:
    """One run's score in points: its documented headline, or a Gym run's mean reward."""
    head = task.headline
    if head is not None:
        return to_points(head.value, head.scale) if head.scale else None
    scan = task.view.scan if task.kind == "gym" else None
    if scan is not None and scan.items:
        return 100.0 * sum(scan.items.values()) / len(scan.items)
    return None


def minimum_runs(label: str) -> int:
    return next((n for name, n in MIN_RUNS.items() if name in label.lower()), DEFAULT_MIN_RUNS)


def _replays(runs: list[SuiteTask]) -> list[str]:
    """Pairs of runs of one side whose responses are one another's (not independent)."""
    found = []
    for a, b in combinations(runs, 2):
        check = reuse_check(side_of_run(a.view, a.validation), side_of_run(b.view, b.validation))
        if check.status == FAIL:
            found.append(f"{a.view.task_dir.parent.name} and {b.view.task_dir.parent.name}")
    return found


def _side(runs: list[SuiteTask]) -> dict[str, Any]:
    valid = [t for t in runs if t.validation[0] == "valid"]
    scores = [s for s in (run_score(t) for t in valid) if s is not None]
    mean, se, k = stats.mean_se(scores)
    return {
        "runs": len(runs),
        "valid": k,
        "scores": scores,
        "mean": mean if k else None,
        "se": se if math.isfinite(se) else None,
        "invalid": [t.view.task_dir.parent.name for t in runs if t not in valid],
    }


def _welch_df(se_b: float, k_b: int, se_c: float, k_c: int) -> float:
    num = (se_b**2 + se_c**2) ** 2
    den = se_b**4 / (k_b - 1) + se_c**4 / (k_c - 1)
    return num / den if den > 0 else math.nan


def run_command(runs: list[SuiteTask]) -> str:
    """`nel run` of this task alone, with the config the runs were launched from."""
    from evalkit.inputs import load_yaml
    from evalkit.shellword import shell_word

    task = task_name(runs[0].view.name)
    path = runs[0].view.run.config_path
    try:
        doc = load_yaml(path) if path is not None else None
    except InputError:
        doc = None  # validate names the unreadable config; the command keeps a placeholder
    for step in ("metadata", "launcher_resolved_config", "user_config_path"):
        doc = doc.get(step) if isinstance(doc, dict) else None
    config = doc if isinstance(doc, str) and doc.strip() else None
    shown = shell_word(config) if config else "CONFIG.yaml"
    return f"nel run --config {shown} -t {shell_word(task)}"


def pooled_row(
    label: str, base: list[SuiteTask], cand: list[SuiteTask], margin: Margin
) -> dict[str, Any]:
    """The row of a task pooled from several runs on at least one side."""
    sides = {"base": _side(base), "cand": _side(cand)}
    need = minimum_runs(label)
    row: dict[str, Any] = {
        "paired": False,
        "n": None,
        "scale": "points",
        "runs": sides,
        "min_runs": need,
        "paired_why": "independent runs pooled per side: their mean, SE = sd / sqrt(runs), "
        "the sides compared unpaired (Welch's t)",
        "provenance": {"base": base[0].view.provenance, "cand": cand[0].view.provenance},
    }
    replayed = [
        f"{name}: {pair}"
        for name, runs in (("base", base), ("candidate", cand))
        for pair in _replays(runs)
    ]
    if replayed:
        row.update(
            verdict="not_comparable",
            reasons=[
                "runs that replay one another are not independent (shared responses): "
                + "; ".join(replayed)
                + ": submit each run into a fresh output_dir with no cache carried over"
            ],
        )
        return row
    b, c = sides["base"], sides["cand"]
    short = {side: max(0, need - sides[side]["valid"]) for side in sides}
    if any(short.values()):
        row.update(
            base=b["mean"],
            cand=c["mean"],
            verdict="inconclusive",
            runs_needed=short,
            run_command=run_command(base if short["base"] else cand),
            reasons=[
                f"{label} needs at least {need} valid independent runs per side "
                f"(num_repeats stays 1); base has {b['valid']}, candidate {c['valid']}"
            ],
        )
        return row
    delta = c["mean"] - b["mean"]
    se = math.sqrt(b["se"] ** 2 + c["se"] ** 2)
    df = _welch_df(b["se"], b["valid"], c["se"], c["valid"])
    ci = stats.t_interval(delta, se, df)
    points = margin.resolve(b["mean"])
    verdict, why = decide(delta, ci, points)
    row.update(
        base=b["mean"],
        cand=c["mean"],
        delta=delta,
        se=se,
        ci95=list(ci),
        mde=stats.mde(se),
        margin=points,
        verdict=verdict,
        reasons=[why],
    )
    return row


__all__ = [
    "DEFAULT_MIN_RUNS",
    "MIN_RUNS",
    "minimum_runs",
    "pair_pools",
    "pooled_row",
    "run_command",
    "run_score",
    "split_runs",
]
