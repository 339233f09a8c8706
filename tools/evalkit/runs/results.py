"""Reading nemo-evaluator result files (the run's settings are in runs/settings.py).

- `results.yml`: scores at `results.tasks|groups.<name>.metrics.<metric>.scores.<score>`
  (`value`, and `stats.stderr` when the harness reports it); groups may nest groups.
  Keys are flattened the way the exporters do: `<task>_<metric>_<score>`, or
  `<task>_<metric>` when the score is named like the metric.
- `eval_factory_metrics.json`: `response_stats.finish_reason` counts and friends.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.inputs import expect_mapping, load_json, load_yaml


@dataclass(frozen=True)
class Score:
    key: str  # exporter-style flattened key
    section: str  # "tasks" or "groups"
    names: tuple[str, ...]  # task/group path, metric, score
    value: float | None
    stderr: float | None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def load_results(path: str | Path) -> dict[str, Any]:
    return expect_mapping(load_yaml(path), path)


def iter_scores(document: dict[str, Any]) -> Iterator[Score]:
    """Every score in a results.yml document, tasks first, then (nested) groups."""
    results = document.get("results")
    if not isinstance(results, dict):
        return
    for section in ("tasks", "groups"):
        entries = results.get(section)
        if isinstance(entries, dict):
            yield from _walk(section, entries, ())


def _walk(section: str, entries: dict, prefix: tuple[str, ...]) -> Iterator[Score]:
    for name, body in entries.items():
        if not isinstance(body, dict):
            continue
        path = (*prefix, str(name))
        metrics = body.get("metrics")
        if isinstance(metrics, dict):
            for metric, mbody in metrics.items():
                scores = mbody.get("scores") if isinstance(mbody, dict) else None
                if not isinstance(scores, dict):
                    continue
                for score, sbody in scores.items():
                    if not isinstance(sbody, dict):
                        continue
                    stats = sbody.get("stats") if isinstance(sbody.get("stats"), dict) else {}
                    tail = [str(metric)] if score == metric else [str(metric), str(score)]
                    yield Score(
                        key="_".join([*path, *tail]),
                        section=section,
                        names=(*path, str(metric), str(score)),
                        value=_number(sbody.get("value")),
                        stderr=_number(stats.get("stderr")),
                    )
        nested = body.get("groups")
        if isinstance(nested, dict):
            yield from _walk(section, nested, path)


def load_factory_metrics(path: str | Path) -> dict[str, Any]:
    return expect_mapping(load_json(path), path)


def finish_reasons(metrics: dict[str, Any]) -> dict[str, int]:
    """`response_stats.finish_reason` counts (empty when absent)."""
    stats = metrics.get("response_stats")
    counts = stats.get("finish_reason") if isinstance(stats, dict) else None
    if not isinstance(counts, dict):
        return {}
    return {
        str(k): int(v) for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)
    }
