"""The release verdict: every task of a baseline suite against the candidate's, one gate.

Data flow: two invocation dirs -> loaded runs (evalkit.runs.run) -> each run validated
(sharing the run's one rollout pass) -> tasks paired by benchmark -> per task a paired
item comparison (NeMo Gym tasks with rollouts) or an unpaired headline comparison
(results.yml only) -> margins from the gate file -> baseline against published
references -> one gate: pass | fail | inconclusive | not_comparable.

Gate file (YAML), margins in points on each task's scale or relative to the baseline:

    default: {points: 1.0}
    benchmarks:
      mrcr: {points: 2.0}
      gpqa: {relative: 0.02}   # 2 % of the baseline's score

Reference file (YAML), published scores on the task's own scale:

    tolerance: 3.0             # points; default for every benchmark
    benchmarks:
      gpqa: {score: 71.5, source: "model card, 2026-10", tolerance: 2.0}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.benchmarks import is_mrcr
from evalkit.errors import InputError

GATES = ("pass", "fail", "inconclusive", "not_comparable")
DEFAULT_MARGIN = 1.0
DEFAULT_TOLERANCE = 3.0


# ---- gate and reference files ----------------------------------------------------------


@dataclass(frozen=True)
class Margin:
    points: float | None = None
    relative: float | None = None

    def resolve(self, base_points: float) -> float:
        """The margin in points for a baseline score in points."""
        if self.relative is not None:
            return abs(base_points) * self.relative if math.isfinite(base_points) else math.nan
        return DEFAULT_MARGIN if self.points is None else self.points

    def describe(self) -> str:
        if self.relative is not None:
            return f"{100 * self.relative:g} % of the baseline"
        return f"{self.resolve(0.0):g} points"


@dataclass(frozen=True)
class Gate:
    default: Margin = Margin(DEFAULT_MARGIN)
    benchmarks: dict[str, Margin] = field(default_factory=dict)
    source: str | None = None

    def margin(self, benchmark: str) -> Margin:
        return self.benchmarks.get(benchmark, self.default)


@dataclass(frozen=True)
class Reference:
    score: float
    tolerance: float
    source: str | None


def _number(value: Any, path: Path, where: str, *, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}: expected a number, got {value!r}", path)
    if minimum is not None and value < minimum:
        raise InputError(f"{where}: must be >= {minimum:g}", path)
    return float(value)


def _margin(value: Any, path: Path, where: str) -> Margin:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Margin(points=_number(value, path, where, minimum=0))
    if not isinstance(value, dict) or len(value) != 1 or set(value) - {"points", "relative"}:
        raise InputError(
            f"{where}: expected a number of points, {{points: N}} or {{relative: F}}", path
        )
    if "points" in value:
        return Margin(points=_number(value["points"], path, f"{where}.points", minimum=0))
    relative = _number(value["relative"], path, f"{where}.relative", minimum=0)
    if relative >= 1:
        raise InputError(f"{where}.relative: a fraction below 1 (0.02 = 2 %)", path)
    return Margin(relative=relative)


def load_gate(path: str | Path) -> Gate:
    from evalkit.inputs import expect_mapping, load_yaml

    p = Path(path)
    doc = expect_mapping(load_yaml(p), p)
    unknown = set(doc) - {"default", "benchmarks"}
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(sorted(map(str, unknown)))}", p)
    default = _margin(doc["default"], p, "default") if "default" in doc else Margin(DEFAULT_MARGIN)
    benchmarks = expect_mapping(doc.get("benchmarks") or {}, p, "benchmarks")
    return Gate(
        default,
        {str(k): _margin(v, p, f"benchmarks.{k}") for k, v in benchmarks.items()},
        str(p),
    )


def load_reference(path: str | Path) -> dict[str, Reference]:
    from evalkit.inputs import expect_mapping, load_yaml

    p = Path(path)
    doc = expect_mapping(load_yaml(p), p)
    unknown = set(doc) - {"tolerance", "benchmarks"}
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(sorted(map(str, unknown)))}", p)
    tolerance = _number(doc.get("tolerance", DEFAULT_TOLERANCE), p, "tolerance", minimum=0)
    out: dict[str, Reference] = {}
    for name, body in expect_mapping(doc.get("benchmarks") or {}, p, "benchmarks").items():
        where = f"benchmarks.{name}"
        body = expect_mapping(body, p, where)
        if "score" not in body:
            raise InputError(f"{where}: no score", p)
        source = body.get("source")
        out[str(name)] = Reference(
            score=_number(body["score"], p, f"{where}.score"),
            tolerance=_number(body.get("tolerance", tolerance), p, f"{where}.tolerance", minimum=0),
            source=str(source) if source is not None else None,
        )
    return out


# ---- one side of the suite ------------------------------------------------------------


@dataclass
class SuiteTask:
    """One task run of one side, with what compare needs to pair and judge it."""

    run: Any  # evalkit.runs.run.Run
    benchmark: str
    kind: str  # "gym" (item-level rollouts) or "results" (results.yml only)
    validation: tuple[str, list[str]]  # (verdict, failing check messages)
    headline: Any = None  # evalkit.compare.Headline for results tasks


def _validation(run: Any) -> tuple[str, list[str]]:
    from evalkit.validate import FAIL, validate_task

    report = validate_task(run)
    return report.verdict, [f"{c.id}: {c.message}" for c in report.checks if c.status == FAIL]


def load_side(path: str | Path) -> list[SuiteTask]:
    from evalkit.benchmarks import gym_benchmark
    from evalkit.compare import results_headlines
    from evalkit.runs.run import load_runs

    tasks: list[SuiteTask] = []
    for run in load_runs(path):
        validation = _validation(run)  # streams the rollouts: the pass is then cached
        if run.is_gym and run.rollouts_path.is_file():
            tasks.append(SuiteTask(run, gym_benchmark(run), "gym", validation))
            continue
        if is_mrcr(run):
            raise InputError(
                "no rollouts file: MRCR items cannot be paired without it", run.rollouts_path
            )
        try:
            headlines = results_headlines(run)
        except InputError:
            headlines = []  # validate already failed it (results-file); shown as no score
        if not headlines:
            tasks.append(SuiteTask(run, run.name, "results", validation))
        for headline in headlines:
            label = headline.task if len(headlines) == 1 else f"{headline.task}/{headline.metric}"
            tasks.append(SuiteTask(run, label, "results", validation, headline))
    return tasks


def _by_benchmark(tasks: list[SuiteTask]) -> dict[str, SuiteTask]:
    out: dict[str, SuiteTask] = {}
    counts: dict[str, int] = {}
    for t in tasks:
        counts[t.benchmark] = counts.get(t.benchmark, 0) + 1
    for t in tasks:
        key = t.benchmark if counts[t.benchmark] == 1 else f"{t.benchmark} ({t.run.name})"
        out[key] = t
    return out


# ---- per-task rows ----------------------------------------------------------------------


def _validation_reasons(base: SuiteTask, cand: SuiteTask) -> list[str]:
    reasons = []
    for side, name in ((base, "baseline"), (cand, "candidate")):
        verdict, why = side.validation
        if verdict != "valid":
            shown = "; ".join(why[:2])
            reasons.append(
                f"{name} {side.run.name} is {verdict} under evalkit validate"
                + (f" ({shown})" if shown else "")
            )
    return reasons


def _gym_row(base: SuiteTask, cand: SuiteTask, margin: Margin, options: dict) -> dict[str, Any]:
    from evalkit.compare import compare_gym, read_gym_side

    result = compare_gym(
        read_gym_side(base.run, base.validation),
        read_gym_side(cand.run, cand.validation),
        margin=margin.resolve,
        **options,
    )
    doc = result.document
    overall = doc["overall"]
    return {
        "paired": True,
        "paired_why": f"items paired by content ({doc['n_paired']} paired, "
        f"{doc['n_unpaired_base']} only in base, {doc['n_unpaired_cand']} only in candidate)",
        "n": doc["n_paired"],
        "scale": "points (0-100)",
        "base": overall["base"],
        "cand": overall["cand"],
        "delta": overall["delta"],
        "ci95": overall["ci95"],
        "se": overall["se"],
        "mde": overall["mde"],
        "margin": doc["margin"],
        "verdict": result.verdict,
        "reasons": list(doc["reasons"]),
        "notes": list(doc["notes"]),
        "strata": doc["strata"] if doc["benchmark"] == "mrcr" else {},
        "trust": doc["trust"],
        "provenance": doc["provenance"],
        "sampling": doc["sampling"],
    }


def _results_row(base: SuiteTask, cand: SuiteTask, margin: Margin) -> dict[str, Any]:
    from evalkit.compare import compare_headlines, to_points

    if base.headline is None or cand.headline is None:
        which = "baseline" if base.headline is None else "candidate"
        return {"paired": False, "verdict": "not_comparable", "reasons": [f"no score in {which}"]}
    scale = base.headline.scale or cand.headline.scale
    points = margin.resolve(to_points(base.headline.value, scale))
    [row] = compare_headlines([base.headline], [cand.headline], margin=points)
    row = {k: v for k, v in row.items() if k not in ("task",)}
    row.update(
        n=None,
        margin=points,
        paired_why="results.yml only: no item-level data, so the two runs are compared "
        "unpaired on their headline score and stderr",
        provenance={"base": base.run.provenance.as_dict(), "cand": cand.run.provenance.as_dict()},
    )
    return row


def _reference_check(row: dict[str, Any], ref: Reference) -> dict[str, Any]:
    """Reference scores are in points, as compare prints them (0-1 tasks x 100)."""
    base = row.get("base")
    out: dict[str, Any] = {"score": ref.score, "source": ref.source, "tolerance": ref.tolerance}
    if base is None or not math.isfinite(base):
        out.update(distance=None, status="unknown")
        return out
    distance = base - ref.score
    out.update(distance=distance, status="ok" if abs(distance) <= ref.tolerance else "far")
    return out


# ---- the suite ---------------------------------------------------------------------------


def compare_suite(
    base_path: str | Path,
    cand_path: str | Path,
    *,
    gate: Gate | None = None,
    reference: dict[str, Reference] | None = None,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
    default_margin: float = DEFAULT_MARGIN,
) -> dict[str, Any]:
    gate = gate or Gate(Margin(default_margin))
    options = {"seed": seed, "bootstrap": bootstrap, "weighting": weighting}
    base_side = _by_benchmark(load_side(base_path))
    cand_side = _by_benchmark(load_side(cand_path))
    rows: list[dict[str, Any]] = []
    for key in sorted(base_side.keys() | cand_side.keys()):
        b, c = base_side.get(key), cand_side.get(key)
        either = b or c
        row: dict[str, Any] = {
            "task": either.run.name,
            "benchmark": key,
            "paired": False,
            "n": None,
            "base": None,
            "cand": None,
            "delta": None,
            "ci95": [None, None],
        }
        if b is None or c is None:
            row.update(
                verdict="not_comparable",
                reasons=[f"only in the {'candidate' if b is None else 'baseline'} suite"],
            )
            rows.append(row)
            continue
        margin = gate.margin(b.benchmark)
        if b.kind != c.kind:
            row.update(
                verdict="not_comparable",
                reasons=["item-level rollouts on one side only: not the same kind of run"],
            )
        elif b.kind == "gym":
            row.update(_gym_row(b, c, margin, options))
        else:
            row.update(_results_row(b, c, margin))
            invalid = _validation_reasons(b, c)
            if invalid:
                row["verdict"] = "not_comparable"
                row["reasons"] = invalid + list(row.get("reasons", []))
        row["validation"] = {"base": b.validation[0], "cand": c.validation[0]}
        row["margin_rule"] = margin.describe()
        if reference and b.benchmark in reference:
            row["reference"] = _reference_check(row, reference[b.benchmark])
        rows.append(row)
    if not rows:
        raise InputError("nothing to compare: no task runs on either side", base_path)
    verdict, reasons = suite_gate(rows)
    return {
        "kind": "suite",
        "tasks": rows,
        "gate": verdict,
        "reasons": reasons,
        "gate_file": gate.source,
        "default_margin": gate.default.describe(),
        "paths": {"base": str(base_path), "cand": str(cand_path)},
        "seed": seed,
        "bootstrap_replicates": bootstrap,
    }


def suite_gate(rows: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """fail if any task regressed; else not_comparable if any task (or a baseline far from
    its reference) cannot be judged; else inconclusive if any is; else pass."""
    reasons: list[str] = []
    by_verdict: dict[str, list[str]] = {}
    for row in rows:
        by_verdict.setdefault(row["verdict"], []).append(row["benchmark"])
    far = [row for row in rows if row.get("reference", {}).get("status") == "far"]
    for row in far:
        ref = row["reference"]
        reasons.append(
            f"{row['benchmark']}: baseline {row['base']:.2f} is {ref['distance']:+.2f} points "
            f"from its reference {ref['score']:g} ({ref['source'] or 'no source'}), beyond "
            f"{ref['tolerance']:g}: check the baseline setup before trusting any delta"
        )
    for verdict in ("regression", "not_comparable", "inconclusive"):
        if verdict in by_verdict:
            reasons.append(f"{verdict}: {', '.join(by_verdict[verdict])}")
    if "regression" in by_verdict:
        return "fail", reasons
    if "not_comparable" in by_verdict or far:
        return "not_comparable", reasons
    if "inconclusive" in by_verdict:
        return "inconclusive", reasons
    reasons.append(f"every task ({len(rows)}) is no_regression")
    return "pass", reasons


def compare_paths(
    base_path: str | Path,
    cand_path: str | Path,
    *,
    gate: Gate | None = None,
    reference: dict[str, Reference] | None = None,
    margin: float = DEFAULT_MARGIN,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
) -> dict[str, Any]:
    """One MRCR task on each side (and no gate or reference): the detailed MRCR document
    (evalkit.compare.compare_runs); anything else: the suite document."""
    from evalkit.compare import compare_runs
    from evalkit.runs.run import load_runs

    base_runs, cand_runs = load_runs(base_path), load_runs(cand_path)
    single = len(base_runs) == len(cand_runs) == 1
    if (
        single
        and gate is None
        and not reference
        and is_mrcr(base_runs[0])
        and is_mrcr(cand_runs[0])
    ):
        return compare_runs(
            base_runs[0],
            cand_runs[0],
            margin=margin,
            seed=seed,
            bootstrap=bootstrap,
            weighting=weighting,
            validation=_validation,
        )
    return compare_suite(
        base_path,
        cand_path,
        gate=gate,
        reference=reference,
        seed=seed,
        bootstrap=bootstrap,
        weighting=weighting,
        default_margin=margin,
    )
