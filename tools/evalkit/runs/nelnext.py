"""Read a nel-next (nemo-evaluator >= 0.3) run directory: the files its engine writes at the
end of a run (nemo_evaluator 0.3.0: engine/artifacts.py write_all and
observability/collector.py ArtifactCollector.write):

  eval-<UTC stamp>-<benchmark>.json   bundle: sdk_version, benchmark {samples, repeats, scores}
  results.jsonl                       one scored trial a line (problem_idx, repeat, reward)
  trajectories.jsonl                  one StepRecord a line (timestamp, reward, timing.total_ms,
                                      model_error, failure_category)
  runtime_stats.json                  elapsed_seconds for the whole run

Every value is data; a missing file leaves its part None, never a guess."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError

# Bounds against hostile run dirs: a TB2.1 run holds 712 trials, a long run a few 10k.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINES = 500_000
BUNDLE_GLOB = "eval-*.json"


@dataclass(frozen=True)
class Trial:
    problem_idx: int
    repeat: int
    reward: float | None
    started: float | None  # StepRecord.timestamp (epoch seconds)
    total_s: float | None  # timing.total_ms / 1000
    failed: bool  # model_error or failure_category set

    @property
    def closed(self) -> float | None:
        if self.started is None or self.total_s is None:
            return None
        return self.started + self.total_s


@dataclass
class NelNextRun:
    path: Path
    bundle_path: Path | None = None
    sdk_version: str | None = None
    benchmark: str | None = None
    samples: int | None = None
    repeats: int | None = None
    scores: dict[str, Any] = field(default_factory=dict)
    scored: int | None = None  # lines in results.jsonl
    trials: list[Trial] | None = None  # from trajectories.jsonl
    elapsed_s: float | None = None  # runtime_stats.json

    @property
    def expected(self) -> int | None:
        if self.samples is None or self.repeats is None:
            return None
        return self.samples * self.repeats


def bundle_of(path: Path) -> Path | None:
    """The run's bundle: the eval-*.json that names an sdk_version (newest name wins)."""
    if not path.is_dir():
        return None
    for candidate in sorted(path.glob(BUNDLE_GLOB), reverse=True):
        data = _json(candidate)
        if isinstance(data, dict) and "sdk_version" in data and "benchmark" in data:
            return candidate
    return None


def is_nel_next_run(path: str | Path) -> bool:
    return bundle_of(Path(path)) is not None


def load(path: str | Path) -> NelNextRun:
    root = Path(path)
    run = NelNextRun(path=root)
    run.bundle_path = bundle_of(root)
    if run.bundle_path is not None:
        bundle = _json(run.bundle_path, strict=True)
        run.sdk_version = _str(bundle.get("sdk_version"))
        bench = bundle.get("benchmark") if isinstance(bundle.get("benchmark"), dict) else {}
        run.benchmark = _str(bench.get("name"))
        run.samples = _count(bench.get("samples"))
        run.repeats = _count(bench.get("repeats"))
        if isinstance(bench.get("scores"), dict):
            run.scores = bench["scores"]
    results = root / "results.jsonl"
    if results.is_file():
        run.scored = sum(1 for _ in _jsonl(results))
    trajectories = root / "trajectories.jsonl"
    if trajectories.is_file():
        run.trials = [_trial(rec) for rec in _jsonl(trajectories)]
    stats = root / "runtime_stats.json"
    if stats.is_file():
        data = _json(stats, strict=True)
        run.elapsed_s = _number(data.get("elapsed_seconds")) if isinstance(data, dict) else None
    return run


def score_value(scores: dict[str, Any], name: str) -> float | None:
    """A metric from bundle scores, stored as a number or as {"value": number}."""
    for key, value in scores.items():
        if key == name or key.endswith("/" + name):
            if isinstance(value, dict):
                value = value.get("value", value.get("mean"))
            return _number(value)
    return None


def _trial(rec: dict[str, Any]) -> Trial:
    timing = rec.get("timing") if isinstance(rec.get("timing"), dict) else {}
    total_ms = _number(timing.get("total_ms"))
    return Trial(
        problem_idx=_count(rec.get("problem_idx")) or 0,
        repeat=_count(rec.get("repeat")) or 0,
        reward=_number(rec.get("reward")),
        started=_number(rec.get("timestamp")),
        total_s=None if total_ms is None else total_ms / 1000.0,
        failed=bool(rec.get("model_error") or rec.get("failure_category")),
    )


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"larger than {MAX_FILE_BYTES} bytes", path)
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None


def _json(path: Path, strict: bool = False) -> Any:
    try:
        return json.loads(_read(path))
    except ValueError as exc:
        if strict:
            raise InputError(f"not JSON: {exc}", path) from None
        return None


def _jsonl(path: Path):
    for number, line in enumerate(_read(path).splitlines(), 1):
        if number > MAX_LINES:
            raise InputError(f"more than {MAX_LINES} lines", path, number)
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            raise InputError("not a JSON line", path, number) from None
        if not isinstance(rec, dict):
            raise InputError("not a JSON object", path, number)
        if rec.get("_type") == "meta":  # step-log header line (engine/step_log.py)
            continue
        yield rec


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
