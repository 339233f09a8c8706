"""The task's own records of its settings, and where two of them disagree.

A setting can be recorded in several places a task run leaves: the task's config section
(run_config.yml's `config.params`), the harness's copy of that config in results.yml
(nemo-evaluator writes it beside the scores), what the harness logged it sent, what the
rollouts carry. The fingerprint (runs/fingerprint.py) picks the most direct one; a pair of
records with two values means the run cannot say what it ran (issue 47).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import parse_yaml, read_text
from evalkit.runs.configview import FieldValue, as_data


@dataclass(frozen=True)
class Conflict:
    """One setting recorded with different values in two of the task's own records."""

    field: str
    values: tuple[FieldValue, ...]

    def message(self) -> str:
        shown = "; ".join(f"{v.value} in {v.source}" for v in self.values)
        return f"{self.field} is recorded twice with different values ({shown})"


# The harness's own record of the config it ran (nemo-evaluator writes it into
# results.yml next to the scores): a second witness of the task's settings.
RESULTS_YML = "artifacts/results.yml"


def results_params(run: Any) -> dict[str, Any] | None:
    path = run.results_path
    if not path.is_file():
        return None
    try:
        document = parse_yaml(read_text(path), RESULTS_YML)
    except InputError:
        return None
    params = document.get("config", {}).get("params") if isinstance(document, dict) else None
    return params if isinstance(params, dict) else None


def results_param(params: dict[str, Any] | None, *path: str, null: Any = None) -> FieldValue | None:
    node: Any = params
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    value = null if node is None else as_data(node)
    return FieldValue(value, f"{RESULTS_YML} (config.params.{'.'.join(path)})")


def same(a: Any, b: Any) -> bool:
    """Equal as recorded: numbers by value (1 and 1.0 alike, within float rounding),
    containers by their canonical JSON."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, bool) or isinstance(b, bool):
            return a is b
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return canonical(a) == canonical(b)
    return a == b


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def conflicts(records: dict[str, list[FieldValue | None]]) -> tuple[Conflict, ...]:
    """The settings whose recorded values disagree between the task's own records."""
    found = []
    for name, candidates in records.items():
        present = [c for c in candidates if c is not None and c.value is not None]
        distinct: list[FieldValue] = []
        for c in present:
            if not any(same(c.value, d.value) for d in distinct):
                distinct.append(c)
        if len(distinct) > 1:
            found.append(Conflict(name, tuple(distinct)))
    return tuple(found)


__all__ = [
    "RESULTS_YML",
    "Conflict",
    "canonical",
    "conflicts",
    "results_param",
    "results_params",
    "same",
]
