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
from evalkit.comparison.verdict import decide
from evalkit.runs.outcomes import TaskOutcomes

# Items that do not pair (only in one run, or asked with a different prompt) past this
# share of all items seen make the task not_comparable: the same 5 % past which validate
# calls a run with unwritten items invalid (checks/rules/item_outcomes.py), and a share
# at which items missing for a reason tied to their answer (the hard ones time out) can
# bias the delta by up to 5 points, beyond any usual margin. Below it, a baseline item
# the candidate lacks counts as a failure of the candidate (score 0, cause missing), so
# what is missing can only cost the candidate, never flatter it.
UNPAIRED_MAX_SHARE = 0.05
POINTS_PER_UNIT = {"0-1": 100.0, "0-100": 1.0, "-100..100": 1.0}
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


MISSING = Item(0.0, frozenset(), 1.0, Counter({"missing": 1}))


def account(b_items: dict[str, Item], c_items: dict[str, Item]) -> dict[str, Any]:
    """Every item in one class: paired, only_in_base, only_in_cand, prompt_mismatch."""
    both = b_items.keys() & c_items.keys()
    mismatch = sorted(k for k in both if b_items[k].digests != c_items[k].digests)
    paired = sorted(both - set(mismatch), key=lambda k: (len(k), k))
    only_b = sorted(b_items.keys() - c_items.keys(), key=lambda k: (len(k), k))
    only_c = sorted(c_items.keys() - b_items.keys(), key=lambda k: (len(k), k))
    seen = len(b_items.keys() | c_items.keys())
    unpaired = len(only_b) + len(only_c) + len(mismatch)
    return {
        "items_seen": seen,
        "paired": len(paired),
        "only_in_base": len(only_b),
        "only_in_cand": len(only_c),
        "prompt_mismatch": len(mismatch),
        "unpaired_share": unpaired / seen if seen else 0.0,
        "max_unpaired_share": UNPAIRED_MAX_SHARE,
        "examples": {
            "only_in_base": only_b[:3],
            "only_in_cand": only_c[:3],
            "prompt_mismatch": mismatch[:3],
        },
        "_keys": (paired, only_b + mismatch),
    }


def pairing_words(a: dict[str, Any]) -> str:
    return (
        f"{a['paired']} paired, {a['only_in_base']} only in base, {a['only_in_cand']} only "
        f"in candidate, {a['prompt_mismatch']} with a different prompt"
    )


def compare_outcomes(
    base: TaskOutcomes,
    cand: TaskOutcomes,
    *,
    margin: Callable[[float], float],
    seed: int = 0,
    bootstrap: int = 10_000,
    scales: tuple[str | None, str | None] = ("0-1", "0-1"),
) -> dict[str, Any]:
    """The task's row: every item accounted for, paired delta in points on the declared
    item scale (SCALES, from each side's adapter), the failure test, the verdict."""
    b_items, c_items = collapse(base), collapse(cand)
    accounting = account(b_items, c_items)
    paired, lacking = accounting.pop("_keys")
    reasons: list[str] = []
    notes: list[str] = []
    share = accounting["unpaired_share"]
    if share > UNPAIRED_MAX_SHARE:
        reasons.append(
            f"{pairing_words(accounting)} of {accounting['items_seen']} items: "
            f"{100 * share:.1f} % do not pair (> {100 * UNPAIRED_MAX_SHARE:.0f} %): different "
            "datasets, seeds or an incomplete run"
        )
        lacking = []
    elif lacking:
        notes.append(
            f"{len(lacking)} baseline items without a matching candidate item (only in base "
            "or another prompt) count as candidate failures (score 0, cause missing)"
        )
    if accounting["only_in_cand"] and share <= UNPAIRED_MAX_SHARE:
        notes.append(f"{accounting['only_in_cand']} items only in the candidate: not scored")
    scale = scales[0] if scales[0] == scales[1] else None
    if scale not in POINTS_PER_UNIT:
        shown = " vs ".join(str(s) for s in scales)
        reasons.append(
            f"item score scale not declared alike on both sides ({shown}): the adapter "
            "names no range for this metric, so points cannot be computed"
        )
    factor = POINTS_PER_UNIT.get(scale or "", 1.0)
    pb = [b_items[k] for k in paired + lacking]
    pc = [c_items[k] for k in paired] + [MISSING] * len(lacking)
    result = stats.stratified_paired(
        {"all": ([factor * i.score for i in pb], [factor * i.score for i in pc])},
        seed=seed,
        bootstrap=bootstrap,
        permutations=bootstrap,
    )
    overall = result.overall
    shift = failure_shift(pb, pc, seed, bootstrap)
    points_margin = margin(overall.base)
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
        f"({pairing_words(accounting)})",
        "pairing": accounting,
        "n": len(pb),
        "scale": "points (0-100)" if scale == "0-1" else f"points ({scale})",
        "item_scale": {"base": scales[0], "cand": scales[1]},
        **{k: summary[k] for k in ("base", "cand", "delta", "ci95", "se", "mde")},
        "bootstrap_ci95": summary["bootstrap_ci95"],
        "p_permutation": summary["p_permutation"],
        "margin": points_margin,
        "verdict": verdict,
        "reasons": reasons,
        "notes": notes,
        "failures": shift,
        "outcomes": {"base": base.as_dict(), "cand": cand.as_dict()},
        # Response and runtime fault rates per side, each over its own denominator
        # (runs/outcomes.py); shown, not added, and None when the denominator is unknown.
        "fault_rates": {"base": base.rates(), "cand": cand.rates()},
        "method": "paired t on per-item score differences (repeats averaged first), "
        "percentile bootstrap, sign-flip permutation; stderr from the items, not results.yml",
    }
