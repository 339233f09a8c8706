"""`-o key=value` overrides applied the way `nel run -o` applies them (Hydra rules).

- `key=value` changes an existing key; a key the composed config lacks is an error
  ("Could not override ..."), as in the launcher's struct mode.
- `+key=value` adds a key that must not exist yet; `++key=value` adds or replaces.
- `execution=...` / `deployment=...` pick a different bundled group option.
- A path segment after `evaluation.tasks` may name a task (exact name or suffix match),
  like the launcher's shorthand `evaluation.tasks.ifeval.nemo_evaluator_config...`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from evalkit.errors import UsageError

_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?|[-+]?(inf|nan)", re.I)
GROUPS = ("execution", "deployment")


@dataclass(frozen=True)
class Override:
    raw: str
    mode: str  # "", "+", "++"
    key: str
    value: Any


def parse_value(text: str) -> Any:
    """Hydra-like value parsing: null/bools/numbers/quoted/[lists]/{maps}, else a string."""
    stripped = text.strip()
    low = stripped.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    if _INT.fullmatch(stripped):
        return int(stripped)
    if _FLOAT.fullmatch(stripped):
        return float(stripped)
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        return stripped[1:-1]
    if stripped[:1] in "[{":
        try:
            return yaml.safe_load(stripped)
        except yaml.YAMLError:
            return stripped
    return text


def parse_override(raw: str) -> Override:
    if "=" not in raw:
        raise UsageError(f"override {raw!r} is not key=value")
    key, _, value = raw.partition("=")
    mode = "++" if key.startswith("++") else "+" if key.startswith("+") else ""
    key = key[len(mode) :].strip()
    if not key or key.startswith("~"):
        raise UsageError(f"override {raw!r}: unsupported key (deletion with ~ is not supported)")
    return Override(raw, mode, key, parse_value(value))


def split_choices(overrides: list[Override]) -> tuple[dict[str, str], list[Override]]:
    """Separate `deployment=vllm_ray`-style group choices from value overrides."""
    choices: dict[str, str] = {}
    rest: list[Override] = []
    for ov in overrides:
        if ov.key in GROUPS and isinstance(ov.value, str) and ov.mode == "":
            choices[ov.key] = ov.value
        else:
            rest.append(ov)
    return choices, rest


def _task_index(tasks: list, name: str) -> int | None:
    for i, task in enumerate(tasks):
        if isinstance(task, dict) and task.get("name") == name:
            return i
    for i, task in enumerate(tasks):
        if isinstance(task, dict) and str(task.get("name", "")).endswith("." + name):
            return i
    return None


def resolve_segments(data: dict, key: str) -> tuple:
    """Dotted key -> key path, turning list positions and task names into indices."""
    parts: list = []
    node: Any = data
    for seg in key.split("."):
        if isinstance(node, list):
            if seg.isdigit():
                index: int | None = int(seg)
            elif parts[-2:] == ["evaluation", "tasks"] or parts[-1:] == ["tasks"]:
                index = _task_index(node, seg)
            else:
                index = None
            if index is None or index >= len(node):
                raise UsageError(f"override {key!r}: no list item '{seg}'")
            parts.append(index)
            node = node[index]
        else:
            parts.append(seg)
            node = node.get(seg) if isinstance(node, dict) else None
    return tuple(parts)


def apply(data: dict, ov: Override) -> tuple:
    """Apply one override in place; returns the key path it set."""
    path = resolve_segments(data, ov.key)
    node: Any = data
    for part in path[:-1]:
        nxt = node[part] if isinstance(node, list) else node.get(part)
        if nxt is None or not isinstance(nxt, (dict, list)):
            if ov.mode == "":
                raise UsageError(
                    f"Could not override '{ov.key}'. To append to your config use +{ov.raw}"
                )
            if not isinstance(node, dict):
                raise UsageError(f"override {ov.key!r}: cannot add under a list")
            nxt = {}
            node[part] = nxt
        node = nxt
    leaf = path[-1]
    exists = (leaf < len(node)) if isinstance(node, list) else (leaf in node)
    if ov.mode == "" and not exists:
        raise UsageError(f"Could not override '{ov.key}'. To append to your config use +{ov.raw}")
    if ov.mode == "+" and exists:
        raise UsageError(
            f"Could not append to config. An item is already at '{ov.key}' (use ++ to replace)"
        )
    node[leaf] = ov.value
    return path
