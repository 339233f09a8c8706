"""Move a 0.1.x `overrides:` map (dotted keys) to the nested `nemo_evaluator_config`.

nel 0.2.6 refuses `overrides` and states the migration itself: each dotted key becomes
the same path nested under `nemo_evaluator_config` (nemo-evaluator-launcher 0.2.6,
common/helpers.py:98-125, `_MIGRATION_MESSAGE`). Shared by the NEL005 fixer
(`evaluation.overrides`) and the NEL004 one (a task's `overrides`). Refuses when the
section already has a `nemo_evaluator_config`, when a value is a list or mapping (the
line editor writes scalars), or when two keys collide (`a.b` and `a.b.c`).
"""

from __future__ import annotations

from evalkit.config.textedit import yaml_scalar
from evalkit.preflight.fixes.blocks import block_mapping


def nested(flat: dict) -> dict | None:
    out: dict = {}
    for dotted, value in flat.items():
        if isinstance(value, (dict, list)) or not isinstance(dotted, str):
            return None
        *parents, leaf = dotted.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                return None
        if leaf in node:
            return None
        node[leaf] = value
    return out


def render(key: str, value, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict):
        out = [f"{pad}{key}:"]
        for child, inner in value.items():
            out += render(child, inner, indent + 2)
        return out
    return [f"{pad}{key}: {yaml_scalar(value)}"]


def move(doc, path: tuple) -> bool:
    """`<section>.overrides` -> `<section>.nemo_evaluator_config`, written in the place of
    the `overrides:` block (path ends in overrides; a task in a list works too)."""
    section = path[:-1]
    if not doc.has(path) or not block_mapping(doc, path):
        return False
    if doc.has(section + ("nemo_evaluator_config",)):
        return False
    value = nested(doc.value(path))
    if not value:
        return False
    first, last = doc.extent(path)
    lines = doc.lines
    head = lines[first]
    if not head.lstrip().startswith("overrides:"):  # `- overrides:` opens a list item
        return False
    indent = len(head) - len(head.lstrip())
    lines[first : last + 1] = render("nemo_evaluator_config", value, indent)
    doc.replace_text("\n".join(lines))
    doc.claim(section + ("nemo_evaluator_config",))  # the moved values land there
    return True
