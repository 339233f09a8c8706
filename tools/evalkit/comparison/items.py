"""Two Gym runs item by item: items joined by content key (MRCR: random_string_to_prepend,
n_needles, expected_answer), never by task index, which follows each run's prepared-file
order -> paired statistics -> trust checks -> the task's verdict and detail document."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalkit.comparison import stats, trust
from evalkit.comparison.outcome_items import UNPAIRED_MAX_SHARE
from evalkit.comparison.sides import GymSide, Key
from evalkit.comparison.task_trust import TrustSide, all_checks
from evalkit.comparison.verdict import decide


@dataclass
class MrcrComparison:
    document: dict[str, Any]
    verdict: str
    reasons: list[str] = field(default_factory=list)


def _stratum_name(key: Key) -> str:
    if len(key) < 3:
        return "all"  # items keyed by their prompt: no strata
    return "unknown" if key[1] is None else str(key[1])


def pair_items(
    base: dict[Key, float],
    cand: dict[Key, float],
    strata_names: tuple[str, ...] = ("all",),
    fill_missing: bool = False,
) -> tuple[dict[str, tuple[list[float], list[float]]], int, int]:
    """Join by content key. Returns ({stratum: (base points, cand points)}, unpaired base,
    unpaired cand); scores are converted from 0-1 rewards to points (0-100). With
    FILL_MISSING a baseline item the candidate lacks counts as a candidate failure (0)."""
    strata: dict[str, tuple[list[float], list[float]]] = {h: ([], []) for h in strata_names}
    keys = base.keys() if fill_missing else base.keys() & cand.keys()
    for key in sorted(keys, key=repr):
        b, c = strata.setdefault(_stratum_name(key), ([], []))
        b.append(100.0 * base[key])
        c.append(100.0 * cand.get(key, 0.0))
    return strata, len(base.keys() - cand.keys()), len(cand.keys() - base.keys())


def trust_checks(base: GymSide, cand: GymSide, accepted: frozenset[str] = frozenset()) -> list[Any]:
    """Every reason not to believe a delta between these two runs (the checks every task
    gets, comparison.task_trust), on the rollouts' fingerprints and sampling."""

    def side(g: GymSide) -> TrustSide:
        return TrustSide(
            path=g.path,
            provenance=g.provenance,
            sampling=g.sampling,
            sampling_source=g.sampling_source,
            mixed_sampling=g.mixed_sampling,
            fingerprints=g.fingerprints,
            responses_source="rollouts",
            copies_prompt=g.copies_prompt,
            validation=g.validation,
            harness_versioned=False,
        )

    return all_checks(side(base), side(cand), accepted)


def compare_gym(
    base: GymSide,
    cand: GymSide,
    *,
    margin: float | Callable[[float], float] = 1.0,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
    accepted: frozenset[str] = frozenset(),
) -> MrcrComparison:
    """Items paired by content, trust checks first, then paired statistics and a verdict.

    `margin` in points, or a function of the baseline's score in points (a relative gate)."""

    benchmark = base.benchmark if base.benchmark == cand.benchmark else "mixed"
    strata_names = base.strata if base.strata == cand.strata else ("all",)
    unpaired_base = len(base.items.keys() - cand.items.keys())
    unpaired_cand = len(cand.items.keys() - base.items.keys())
    seen = len(base.items.keys() | cand.items.keys())
    unpaired_share = (unpaired_base + unpaired_cand) / seen if seen else 0.0
    fill = 0 < unpaired_share <= UNPAIRED_MAX_SHARE
    strata_pairs, _, _ = pair_items(base.items, cand.items, strata_names, fill_missing=fill)
    n_paired = len(base.items.keys() & cand.items.keys())
    reasons: list[str] = []
    notes: list[str] = []
    label = "variant"

    if base.agents and cand.agents and base.agents != cand.agents:
        reasons.append(
            f"{label} differs: base agent {', '.join(sorted(base.agents))}, "
            f"candidate agent {', '.join(sorted(cand.agents))}"
        )
    elif base.agent and cand.agent and base.agent != cand.agent:
        reasons.append(f"{label} differs: base {base.agent}, candidate {cand.agent}")
    elif base.agent is None or cand.agent is None:
        where = trust.missing_where(base.agent, cand.agent)
        notes.append(f"variant (agent name) not readable {where}; not checked")
    checks = trust_checks(base, cand, accepted)
    reasons += trust.failures(checks)
    notes += [c.message for c in checks if c.status == trust.NOTE]
    largest = max(len(base.items), len(cand.items))
    fraction = n_paired / largest if largest else 0.0
    if unpaired_share > UNPAIRED_MAX_SHARE or not n_paired:
        reasons.append(
            f"{n_paired} paired, {unpaired_base} only in base, {unpaired_cand} only in "
            f"candidate (an item whose prompt differs is on one side only) of {seen} items: "
            f"{100 * unpaired_share:.1f} % do not pair (> {100 * UNPAIRED_MAX_SHARE:.0f} %): "
            "different datasets, variants or an incomplete run"
        )
    elif fill and unpaired_base:
        notes.append(
            f"{unpaired_base} baseline items missing from the candidate count as candidate "
            "failures (reward 0)"
        )
    for side, name in ((base, "base"), (cand, "candidate")):
        if side.duplicate_keys:
            notes.append(
                f"{name}: {side.duplicate_keys} task indices repeat another item's content; "
                "their rewards were averaged into one item"
            )

    result = stats.stratified_paired(
        strata_pairs, weighting=weighting, seed=seed, bootstrap=bootstrap, permutations=bootstrap
    )
    overall = _summary_dict(result.overall)
    if callable(margin):
        margin = margin(result.overall.base)
    if reasons:
        verdict = "not_comparable"
    else:
        verdict, why = decide(result.overall.delta, result.overall.ci95, margin)
        reasons.append(why)

    document = {
        "benchmark": benchmark,
        "comparable": verdict != "not_comparable",
        "n_paired": n_paired,
        "n_unpaired_base": unpaired_base,
        "n_unpaired_cand": unpaired_cand,
        "paired_fraction": fraction,
        "pairing": {
            "items_seen": seen,
            "paired": n_paired,
            "only_in_base": unpaired_base,
            "only_in_cand": unpaired_cand,
            "prompt_mismatch": None,  # the content key holds the prompt: one side only
            "unpaired_share": unpaired_share,
            "max_unpaired_share": UNPAIRED_MAX_SHARE,
        },
        "margin": margin,
        "overall": overall,
        "strata": {h: _summary_dict(s) for h, s in result.strata.items()},
        "weights": {
            "scheme": "sample-proportional" if weighting == "sample" else "equal per stratum",
            **result.weights,
        },
        "seed": seed,
        "bootstrap_replicates": bootstrap,
        "permutation_replicates": bootstrap,
        "scale": "points (0-100): 100 x mean reward per item, repeats averaged first",
        "method": (
            "items paired by (random_string_to_prepend, n_needles, expected_answer); "
            "paired t on the stratified mean difference (SE = sqrt(sum w_h^2 SE_h^2), "
            "df = n - strata); percentile bootstrap resampling items within strata; "
            "two-sided sign-flip permutation test"
        ),
        "agent": {
            "base": sorted(base.agents) or base.agent,
            "cand": sorted(cand.agents) or cand.agent,
        },
        "sampling": {
            "base": base.sampling,
            "cand": cand.sampling,
            "base_source": base.sampling_source,
            "cand_source": cand.sampling_source,
        },
        "rollouts": {"base": base.rollouts, "cand": cand.rollouts},
        "paths": {"base": str(base.path), "cand": str(cand.path)},
        "provenance": {"base": base.provenance, "cand": cand.provenance},
        "trust": [c.as_dict() for c in checks],
        "verdict": verdict,
        "reasons": reasons,
        "notes": notes,
    }
    return MrcrComparison(document, verdict, reasons)


def _summary_dict(s: stats.PairedSummary) -> dict[str, Any]:
    d = s.as_dict()
    return {
        "base": d["base"],
        "cand": d["cand"],
        "delta": d["delta"],
        "ci95": d["ci95"],
        "bootstrap_ci95": d["bootstrap_ci95"],
        "p_permutation": d["p_permutation"],
        "permutation_method": d["permutation_method"],
        "mde": d["mde"],
        "n": d["n"],
        "se": d["se"],
        "df": d["df"],
        "corr": d["corr"],
    }
