"""Two runs of a task whose harness leaves items (simple-evals, lm-eval, HLE:
benchmarks/harnesses.py), compared item by item: items paired by (item id, prompt
digest) with repeats averaged first, as MRCR's are; the paired statistics, intervals and
MDE are comparison.stats', the verdict rule comparison.verdict's.

Before any delta, the failed-item shares of the two arms are tested: an item that failed
for a reason other than its answer (the answer in reasoning_content, cut at the token
limit, an endpoint or judge error, never written) is scored 0, so a difference in
failures moves the score without saying anything about the model. The test is paired,
on the same items: a two-sided sign-flip permutation test on each item's failed share
(cand - base), which for items run once is the exact McNemar test on the discordant
items; paired, because both arms ran the same items and a two-proportion test would
ignore that. The arms are not comparable when p < FAILURE_ALPHA and the shares differ by
at least FAILURE_FLOOR (1 point of items: below the default margin a failure gap cannot
move the score by more than the margin).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalkit.benchmarks.results_yml.denominators import NOT_THE_ANSWER
from evalkit.comparison import stats
from evalkit.comparison.verdict import MIN_PAIRED_FRACTION, decide
from evalkit.runs.outcomes import TaskOutcomes

FAILURE_ALPHA = 0.05
FAILURE_FLOOR = 0.01
FIXES = {
    "reasoning_only": "the answer is in reasoning_content, which the harness does not "
    "read: check the server's reasoning parser (--reasoning-parser) and the adapter's "
    "process_reasoning_traces",
    "truncated": "replies cut at the output limit: raise max_new_tokens (or the server's "
    "--max-model-len) so the reasoning can finish",
    "judge_error": "judge calls failed and were scored 'no': check the judge endpoint",
    "endpoint_error": "requests failed: check the endpoint's status codes and context length",
    "missing": "items never written: the run stopped early; resume it",
}


@dataclass(frozen=True)
class Item:
    score: float  # mean over repeats, failures counted 0 as the harness counts them
    digests: frozenset
    failed: float  # share of its repeats that failed
    causes: Counter


def collapse(outcomes: TaskOutcomes) -> dict[str, Item]:
    """One entry per item id, its repeats averaged."""
    grouped = defaultdict(list)
    for item in outcomes.items:
        grouped[item.item_id].append(item)
    out = {}
    for key, rows in grouped.items():
        out[key] = Item(
            score=sum(r.score or 0.0 for r in rows) / len(rows),
            digests=frozenset(r.prompt_digest for r in rows),
            failed=sum(r.outcome in NOT_THE_ANSWER for r in rows) / len(rows),
            causes=Counter(r.outcome.value for r in rows if r.outcome in NOT_THE_ANSWER),
        )
    return out


def failure_shift(base: list[Item], cand: list[Item], seed: int, replicates: int) -> dict:
    """The paired test on failed shares, and the cause that moved most."""
    d = [c.failed - b.failed for b, c in zip(base, cand, strict=False)]
    n = len(d)
    share_b = sum(b.failed for b in base) / n if n else 0.0
    share_c = sum(c.failed for c in cand) / n if n else 0.0
    p, how = stats.sign_flip_p(d, replicates=replicates, seed=seed) if any(d) else (1.0, "")
    causes_b = sum((b.causes for b in base), Counter())
    causes_c = sum((c.causes for c in cand), Counter())
    moved = sorted(set(causes_b) | set(causes_c), key=lambda k: -abs(causes_c[k] - causes_b[k]))
    return {
        "base_failed_share": share_b,
        "cand_failed_share": share_c,
        "difference": share_c - share_b,
        "p": p,
        "method": "paired sign-flip on per-item failed share (exact McNemar when run once)"
        + (f", {how}" if how else ""),
        "base_causes": dict(sorted(causes_b.items())),
        "cand_causes": dict(sorted(causes_c.items())),
        "cause": moved[0] if moved else None,
        "shifted": p < FAILURE_ALPHA and abs(share_c - share_b) >= FAILURE_FLOOR,
    }


def _shift_reason(shift: dict) -> str:
    cause = shift["cause"]
    worse = "candidate" if shift["difference"] > 0 else "baseline"
    count = shift["cand_causes" if worse == "candidate" else "base_causes"].get(cause, 0)
    other = shift["base_causes" if worse == "candidate" else "cand_causes"].get(cause, 0)
    return (
        f"failed items differ beyond noise: {100 * shift['base_failed_share']:.1f} % of "
        f"baseline items against {100 * shift['cand_failed_share']:.1f} % of candidate "
        f"items (p = {shift['p']:.2g}); the {worse} has {count} {cause} items (the other "
        f"side {other}): {FIXES.get(cause, 'see the items')}"
    )


def compare_outcomes(
    base: TaskOutcomes,
    cand: TaskOutcomes,
    *,
    margin: Callable[[float], float],
    seed: int = 0,
    bootstrap: int = 10_000,
) -> dict[str, Any]:
    """The task's row: paired delta in points, the failure test, the verdict."""
    b_items, c_items = collapse(base), collapse(cand)
    keys = sorted(
        (k for k in b_items.keys() & c_items.keys() if b_items[k].digests == c_items[k].digests),
        key=lambda k: (len(k), k),
    )
    pb, pc = [b_items[k] for k in keys], [c_items[k] for k in keys]
    to_points = 100.0 if all(0.0 <= i.score <= 1.0 for i in pb + pc) else 1.0
    result = stats.stratified_paired(
        {"all": ([to_points * i.score for i in pb], [to_points * i.score for i in pc])},
        seed=seed,
        bootstrap=bootstrap,
        permutations=bootstrap,
    )
    overall = result.overall
    largest = max(len(b_items), len(c_items))
    fraction = len(keys) / largest if largest else 0.0
    shift = failure_shift(pb, pc, seed, bootstrap)
    points_margin = margin(overall.base)
    reasons: list[str] = []
    if fraction < MIN_PAIRED_FRACTION:
        reasons.append(
            f"only {len(keys)} of {largest} items pair by (item id, prompt) "
            f"({100 * fraction:.1f} % < {100 * MIN_PAIRED_FRACTION:.0f} %): different "
            "datasets, seeds or an incomplete run"
        )
    if shift["shifted"]:
        reasons.append(_shift_reason(shift))
    if reasons:
        verdict = "not_comparable"
    else:
        verdict, why = decide(overall.delta, overall.ci95, points_margin)
        reasons.append(why)
    summary = overall.as_dict()
    return {
        "paired": True,
        "paired_why": f"items paired by (item id, prompt digest), repeats averaged "
        f"({len(keys)} paired, {len(b_items.keys() - c_items.keys())} only in base, "
        f"{len(c_items.keys() - b_items.keys())} only in candidate)",
        "n": len(keys),
        "scale": "points (0-100)",
        **{k: summary[k] for k in ("base", "cand", "delta", "ci95", "se", "mde")},
        "bootstrap_ci95": summary["bootstrap_ci95"],
        "p_permutation": summary["p_permutation"],
        "margin": points_margin,
        "verdict": verdict,
        "reasons": reasons,
        "failures": shift,
        "outcomes": {"base": base.as_dict(), "cand": cand.as_dict()},
        "method": "paired t on per-item score differences (repeats averaged first), "
        "percentile bootstrap, sign-flip permutation; stderr from the items, not results.yml",
    }
