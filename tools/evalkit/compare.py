"""Baseline vs candidate: pair MRCR items by content, compute paired statistics, decide.

Data flow: run paths -> task runs -> per-item mean rewards (repeats collapsed) -> items
joined by content key (random_string_to_prepend, n_needles, expected_answer), never by
task index, which follows each run's prepared-file order -> evalkit.stats -> verdict.
Tasks without item-level data (results.yml only) are compared unpaired on their headline
score and standard error, and the result says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit import stats
from evalkit.benchmarks import gym_benchmark, is_mrcr, rollout_pass
from evalkit.benchmarks.mrcr.variants import agent_of
from evalkit.errors import InputError, UsageError
from evalkit.runs.settings import SAMPLING_KEYS

NEEDLE_STRATA = ("2", "4", "8")
MIN_PAIRED_FRACTION = 0.90
VERDICTS = ("no_regression", "inconclusive", "regression", "not_comparable")
# Severity used to combine several tasks into one verdict (highest wins).
_SEVERITY = {"no_regression": 0, "inconclusive": 1, "not_comparable": 2, "regression": 3}

Key = tuple[str, "int | None", str]


# ---- the verdict rule ------------------------------------------------------------------


def decide(delta: float, ci95: tuple[float, float], margin: float) -> tuple[str, str]:
    """(verdict, reason) for a delta in points (cand - base) and its 95 % interval."""
    lo, hi = ci95
    if not all(math.isfinite(v) for v in (delta, lo, hi)):
        return "inconclusive", "no interval (too few items to estimate the spread)"
    if hi < 0 and delta < -margin:
        return (
            "regression",
            f"interval [{lo:.2f}, {hi:.2f}] lies below 0 and delta {delta:+.2f} "
            f"is worse than -{margin:g} points",
        )
    if lo >= -margin:
        return (
            "no_regression",
            f"interval lower bound {lo:.2f} >= -{margin:g} points",
        )
    return (
        "inconclusive",
        f"interval [{lo:.2f}, {hi:.2f}] reaches below -{margin:g} points but does not "
        f"establish a regression beyond the margin",
    )


def combine(verdicts: Iterable[str]) -> str:
    found = list(verdicts)
    return max(found, key=_SEVERITY.__getitem__) if found else "not_comparable"


# ---- reading one side -------------------------------------------------------------------


@dataclass
class GymSide:
    """What compare needs from one NeMo Gym run: items, settings, evidence of provenance."""

    path: Path
    agent: str | None
    agents: set[str]
    items: dict[Key, float]  # item key -> mean reward over its rollouts (0-1)
    duplicate_keys: int  # distinct task indices sharing one content key (merged)
    rollouts: int
    sampling: dict[str, float]
    sampling_source: str | None
    benchmark: str = "mrcr"
    fingerprints: dict = field(default_factory=dict)  # (item, rollout) -> Fingerprint
    provenance: dict[str, Any] = field(default_factory=dict)
    validation: tuple[str, list[str]] | None = None  # (verdict, failing checks) or None
    mixed_sampling: dict[str, list[float]] = field(default_factory=dict)
    copies_prompt: Callable[[Any], bool] | None = None  # Run.copies_prompt


def read_gym_side(task_run: Any, validation: tuple[str, list[str]] | None = None) -> GymSide:
    """One side from the run's single rollout pass. Sampling is what the rollouts sent
    (responses_create_params), else what the config says."""
    from evalkit.runs.run import as_run

    run = as_run(task_run)
    scan = rollout_pass(run)
    settings = run.settings_or_empty
    agents = set(scan.agents)
    sampling = dict(scan.sampling)
    source = "rollouts (responses_create_params)" if sampling else None
    for key, value in settings.sampling.items():
        if key not in sampling and key not in scan.mixed_sampling:
            sampling[key] = value
            where = str(settings.config_path) if settings.config_path else "config"
            source = f"{source} + {where}" if source else where
    agent = next(iter(agents)) if len(agents) == 1 else None
    if agent is None and not agents:
        agent = agent_of(settings)
    return GymSide(
        path=run.task_dir,
        agent=agent,
        agents=agents,
        items=dict(scan.items),
        duplicate_keys=scan.duplicate_keys,
        rollouts=scan.aggregate.rollouts if scan.aggregate is not None else len(scan.fingerprints),
        sampling=sampling,
        sampling_source=source,
        benchmark=gym_benchmark(run),
        fingerprints=scan.fingerprints,
        provenance=run.provenance.as_dict(),
        validation=validation,
        mixed_sampling=scan.mixed_sampling,
        copies_prompt=run.copies_prompt,
    )


# ---- comparing two Gym runs item by item --------------------------------------------------------


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
    base: dict[Key, float], cand: dict[Key, float], strata_names: tuple[str, ...] = NEEDLE_STRATA
) -> tuple[dict[str, tuple[list[float], list[float]]], int, int]:
    """Join by content key. Returns ({stratum: (base points, cand points)}, unpaired base,
    unpaired cand); scores are converted from 0-1 rewards to points (0-100)."""
    strata: dict[str, tuple[list[float], list[float]]] = {h: ([], []) for h in strata_names}
    for key in sorted(base.keys() & cand.keys(), key=repr):
        b, c = strata.setdefault(_stratum_name(key), ([], []))
        b.append(100.0 * base[key])
        c.append(100.0 * cand[key])
    return strata, len(base.keys() - cand.keys()), len(cand.keys() - base.keys())


def trust_checks(base: GymSide, cand: GymSide) -> list[Any]:
    """Every reason not to believe a delta between these two runs (evalkit.trust)."""
    from evalkit import trust

    checks = []
    if base.validation is not None or cand.validation is not None:
        for side, name in ((base, "baseline"), (cand, "candidate")):
            verdict, why = side.validation if side.validation else (None, [])
            checks.append(trust.check_validation(name, verdict, why))
    checks += trust.check_sampling(
        base.sampling, cand.sampling, SAMPLING_KEYS, (base.sampling_source, cand.sampling_source)
    )
    for side, name in ((base, "base"), (cand, "candidate")):
        for key, values in side.mixed_sampling.items():
            shown = ", ".join(f"{v:g}" for v in values)
            checks.append(
                trust.TrustCheck(
                    f"sampling-{key}",
                    trust.NOTE,
                    f"{name}: rollouts sent several {key} values ({shown})",
                )
            )
    greedy = base.sampling.get("temperature") == 0 and cand.sampling.get("temperature") == 0
    copies = None
    if base.copies_prompt is not None:
        copies = lambda slot: base.copies_prompt(base.fingerprints[slot])  # noqa: E731
    checks.append(
        trust.check_reuse(base.fingerprints, cand.fingerprints, greedy=greedy, copies_prompt=copies)
    )
    checks += trust.check_provenance(base.provenance, cand.provenance)
    return checks


def compare_gym(
    base: GymSide,
    cand: GymSide,
    *,
    margin: float | Callable[[float], float] = 1.0,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
) -> MrcrComparison:
    """Items paired by content, trust checks first, then paired statistics and a verdict.

    `margin` in points, or a function of the baseline's score in points (a relative gate)."""
    from evalkit import trust

    benchmark = base.benchmark if base.benchmark == cand.benchmark else "mixed"
    strata_names = NEEDLE_STRATA if benchmark == "mrcr" else ("all",)
    strata_pairs, unpaired_base, unpaired_cand = pair_items(base.items, cand.items, strata_names)
    n_paired = sum(len(b) for b, _ in strata_pairs.values())
    reasons: list[str] = []
    notes: list[str] = []
    label = "MRCR variant" if benchmark == "mrcr" else "Gym agent"

    if base.agents and cand.agents and base.agents != cand.agents:
        reasons.append(
            f"{label} differs: base agent {', '.join(sorted(base.agents))}, "
            f"candidate agent {', '.join(sorted(cand.agents))}"
        )
    elif base.agent and cand.agent and base.agent != cand.agent:
        reasons.append(f"{label} differs: base {base.agent}, candidate {cand.agent}")
    elif base.agent is None or cand.agent is None:
        notes.append("variant (agent name) not readable on one side; not checked")
    checks = trust_checks(base, cand)
    reasons += trust.failures(checks)
    notes += [c.message for c in checks if c.status == trust.NOTE]
    largest = max(len(base.items), len(cand.items))
    fraction = n_paired / largest if largest else 0.0
    if fraction < MIN_PAIRED_FRACTION:
        reasons.append(
            f"only {n_paired} of {largest} items pair by content ({100 * fraction:.1f} % "
            f"< {100 * MIN_PAIRED_FRACTION:.0f} %): different datasets, variants or "
            "an incomplete run"
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


# ---- tasks with only a headline score (results.yml) -------------------------------------


@dataclass(frozen=True)
class Headline:
    task: str
    metric: str
    value: float
    stderr: float | None
    scale: str | None  # "0-100", "0-1", "-100..100"


def results_headlines(task_run: Any) -> list[Headline]:
    """The documented headline score of a results.yml task run (evalkit.scores), with
    its scale and stderr. When no documented key is found, every numeric score is
    compared instead (token telemetry left out), with its scale unknown."""
    from evalkit.benchmarks import other_score
    from evalkit.runs.results import iter_scores, load_results

    entry = other_score(task_run)
    if entry.get("value") is not None:
        scale = entry.get("scale")
        return [
            Headline(
                task=entry["benchmark"]
                if entry.get("benchmark") not in (None, "unknown")
                else task_run.name,
                metric=entry["metric"],
                value=float(entry["value"]),
                stderr=entry.get("stderr"),
                scale=None if scale == "unknown" else scale,
            )
        ]
    return [
        Headline(score.names[0], score.key, score.value, score.stderr, None)
        for score in iter_scores(load_results(task_run.results_path))
        if score.value is not None and "key_metrics/" not in score.key
    ]


def to_points(value: float, scale: str | None) -> float:
    """Points on the task's own scale: a 0-1 task's 0.01 is one point (documented scale,
    never guessed from the value)."""
    return value * 100.0 if scale == "0-1" else value


def compare_headlines(
    base: Iterable[Headline], cand: Iterable[Headline], *, margin: float = 1.0
) -> list[dict[str, Any]]:
    """Unpaired comparison per (task, metric) present in both runs."""
    base_by = {(h.task, h.metric): h for h in base}
    cand_by = {(h.task, h.metric): h for h in cand}
    rows: list[dict[str, Any]] = []
    for key in sorted(base_by.keys() | cand_by.keys()):
        b, c = base_by.get(key), cand_by.get(key)
        row: dict[str, Any] = {"task": key[0], "metric": key[1], "paired": False}
        if b is None or c is None:
            row.update(
                verdict="not_comparable",
                reasons=[f"only in the {'candidate' if b is None else 'baseline'} run"],
            )
            rows.append(row)
            continue
        scale = b.scale or c.scale
        bv, cv = to_points(b.value, scale), to_points(c.value, scale)
        bse = None if b.stderr is None else to_points(b.stderr, scale)
        cse = None if c.stderr is None else to_points(c.stderr, scale)
        delta, se, ci = stats.unpaired_normal(bv, bse, cv, cse)
        reasons = []
        if b.scale and c.scale and b.scale != c.scale:
            verdict = "not_comparable"
            reasons.append(f"scales differ: {b.scale} vs {c.scale}")
        elif not math.isfinite(se):
            verdict = "inconclusive"
            reasons.append("no stderr in results.yml on one side: delta only, no interval")
        else:
            verdict, why = decide(delta, ci, margin)
            reasons.append(why)
        reasons.append(
            "unpaired: items are not available, so SE = sqrt(SE_B^2 + SE_C^2) "
            "(wider than a paired SE when both runs score the same items)"
        )
        row.update(
            scale=scale,
            base=bv,
            cand=cv,
            delta=delta,
            se=se,
            ci95=list(ci),
            base_stderr=bse,
            cand_stderr=cse,
            verdict=verdict,
            reasons=reasons,
        )
        rows.append(row)
    return rows


# ---- whole runs -------------------------------------------------------------------------


def _mrcr_runs(task_runs: list[Any]) -> list[Any]:
    """MRCR task runs (other Gym tasks, e.g. GDPVal, also write rollouts: not these)."""
    found = [t for t in task_runs if is_mrcr(t)]
    for t in found:
        if not t.rollouts_path.is_file():
            raise InputError(
                "no rollouts file: MRCR items cannot be paired without it", t.rollouts_path
            )
    return found


def _pick_one(runs: list[Any], label: str, path: Path) -> Any:
    if len(runs) > 1:
        names = ", ".join(t.name for t in runs)
        raise UsageError(
            f"{label} {path} holds several MRCR task runs ({names}); pass one task directory"
        )
    return runs[0]


def compare_runs(
    base_path: str | Path,
    cand_path: str | Path,
    *,
    margin: float = 1.0,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
    headlines: Any = None,
    validation: Any = None,
) -> dict[str, Any]:
    """The full compare document for two run paths (invocation, task or artifacts dir) or
    two loaded runs (evalkit.runs.run.Run).

    `headlines(task_run) -> list[Headline]` reads results.yml scores; None skips them.
    `validation(run) -> (verdict, failing checks)`; a side that is not valid makes the
    pair not_comparable. None skips validation.
    """
    from evalkit.runs.layout import TaskRun
    from evalkit.runs.run import as_run, load_runs

    def runs_of(x: Any) -> list[Any]:
        return [as_run(x)] if isinstance(x, TaskRun) else load_runs(x)

    base_runs, cand_runs = runs_of(base_path), runs_of(cand_path)
    base_path = base_runs[0].task_dir if isinstance(base_path, TaskRun) else base_path
    cand_path = cand_runs[0].task_dir if isinstance(cand_path, TaskRun) else cand_path
    base_mrcr, cand_mrcr = _mrcr_runs(base_runs), _mrcr_runs(cand_runs)

    document: dict[str, Any]
    verdicts: list[str] = []
    if base_mrcr and cand_mrcr:
        base_run = _pick_one(base_mrcr, "baseline", Path(base_path))
        cand_run = _pick_one(cand_mrcr, "candidate", Path(cand_path))
        base_side = read_gym_side(base_run, validation(base_run) if validation else None)
        cand_side = read_gym_side(cand_run, validation(cand_run) if validation else None)
        mrcr = compare_gym(
            base_side,
            cand_side,
            margin=margin,
            seed=seed,
            bootstrap=bootstrap,
            weighting=weighting,
        )
        document = mrcr.document
        verdicts.append(mrcr.verdict)
    else:
        document = _empty_mrcr_document(margin, seed)
        if base_mrcr or cand_mrcr:
            which = "baseline" if base_mrcr else "candidate"
            document["reasons"].append(f"only the {which} has MRCR rollouts")
            verdicts.append("not_comparable")

    rows: list[dict[str, Any]] = []
    if headlines is not None:
        others_b = [t for t in base_runs if t not in base_mrcr]
        others_c = [t for t in cand_runs if t not in cand_mrcr]
        rows = compare_headlines(
            [h for t in others_b for h in headlines(t)],
            [h for t in others_c for h in headlines(t)],
            margin=margin,
        )
        verdicts += [row["verdict"] for row in rows]
    document["tasks"] = rows
    if not verdicts:
        raise InputError(
            "nothing to compare: no MRCR rollouts and no results.yml scores in both runs",
            base_path,
        )
    document["verdict"] = combine(verdicts)
    document["comparable"] = "not_comparable" not in verdicts
    if rows:
        document["reasons"] = document["reasons"] + [
            f"{row['task']} {row['metric']}: {row['verdict']}" for row in rows
        ]
    return document


def _empty_mrcr_document(margin: float, seed: int) -> dict[str, Any]:
    nan = float("nan")
    blank = {
        "base": nan,
        "cand": nan,
        "delta": nan,
        "ci95": [nan, nan],
        "bootstrap_ci95": [nan, nan],
        "p_permutation": nan,
        "mde": nan,
        "n": 0,
        "se": nan,
    }
    return {
        "benchmark": None,
        "comparable": False,
        "n_paired": 0,
        "n_unpaired_base": 0,
        "n_unpaired_cand": 0,
        "margin": margin,
        "overall": blank,
        "strata": {h: dict(blank) for h in NEEDLE_STRATA},
        "weights": {},
        "seed": seed,
        "verdict": "not_comparable",
        "reasons": [],
        "notes": [],
    }
