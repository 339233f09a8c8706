"""The gate and reference files of a suite compare.

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

from evalkit.errors import InputError

GATES = ("pass", "fail", "inconclusive", "unverified", "not_comparable")
DEFAULT_MARGIN = 1.0
DEFAULT_TOLERANCE = 3.0


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
    file: str | None = None  # the reference file it was read from


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
            file=str(p),
        )
    return out


# ---- one side of the suite ------------------------------------------------------------
