"""Hydra `defaults:` composition against the launcher 0.2.6 bundled groups (as data).

The launcher composes only the user file's own `defaults:` list (its packaged
default.yaml is not merged), in list order, with `_self_` marking where the file's own
values go; without `_self_` the file's values still win. Merging follows OmegaConf:
mappings merge key by key, anything else is replaced.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from evalkit.inputs import read_text

GROUPS_RESOURCE = "nel-0.2.6-groups.yaml"


@lru_cache(maxsize=1)
def bundled_groups() -> dict[str, dict[str, dict]]:
    # A plain path (package data sits beside the modules); importlib.resources costs
    # more start-up time than the whole composition.
    text = read_text(Path(__file__).resolve().parents[1] / "data" / GROUPS_RESOURCE)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)["groups"]


def merge(base: Any, over: Any) -> Any:
    """OmegaConf-style merge: mappings recursively, every other value replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = merge(base[key], value) if key in base else copy.deepcopy(value)
        return out
    return copy.deepcopy(over)


@dataclass
class DefaultsEntry:
    group: str | None  # None for _self_
    option: str | None
    index: int  # position in the user's list (for its line)
    package: str | None = None  # Hydra `@package`: where the values go (default: the group)

    @property
    def target(self) -> tuple[str, ...]:
        """Key path the option's values are merged under (`_global_` is the root)."""
        package = self.package if self.package is not None else self.group or ""
        if package in ("_global_", ""):
            return ()
        return tuple(package.removeprefix("_global_.").split("."))


@dataclass
class Composition:
    data: dict
    choices: dict[str, str] = field(default_factory=dict)  # group -> option actually used
    problems: list[tuple[int | None, str]] = field(default_factory=list)  # (list index, msg)


def parse_defaults(raw: Any) -> tuple[list[DefaultsEntry], list[tuple[int | None, str]]]:
    entries: list[DefaultsEntry] = []
    problems: list[tuple[int | None, str]] = []
    if raw is None:
        return entries, problems
    if not isinstance(raw, list):
        return entries, [(None, "`defaults` must be a list")]
    for i, item in enumerate(raw):
        if item == "_self_":
            entries.append(DefaultsEntry(None, None, i))
        elif isinstance(item, dict) and len(item) == 1:
            ((key, value),) = item.items()
            group = str(key).replace("override ", "").replace("optional ", "").strip()
            group, _, package = group.partition("@")
            if value is None:
                continue
            if not isinstance(value, str):
                problems.append((i, f"defaults entry '{group}' must name one option"))
                continue
            entries.append(DefaultsEntry(group, value, i, package or None))
        elif isinstance(item, str) and "/" in item:
            # `deployment/vllm@auxiliary_deployments.judge`: option vllm of group
            # deployment, placed at auxiliary_deployments.judge (0.2.6's judge example)
            item, _, package = item.partition("@")
            group, _, option = item.partition("/")
            entries.append(DefaultsEntry(group, option, i, package or None))
        else:
            problems.append((i, f"unsupported defaults entry {item!r}"))
    return entries, problems


def _group_values(group: str, option: str, seen: tuple = ()) -> dict:
    options = bundled_groups()[group]
    raw = dict(options[option])
    raw.pop("summarised", None)
    own_defaults = raw.pop("defaults", None)
    if not own_defaults:
        return raw
    out: dict = {}
    for item in own_defaults:
        if item == "_self_":
            out = merge(out, raw)
        elif item not in seen:
            out = merge(out, _group_values(group, item, seen + (option,)))
    return out


def compose(user: dict, choice_overrides: dict[str, str] | None = None) -> Composition:
    """Effective config: the user's defaults (with any `-o group=option`) merged with it."""
    entries, problems = parse_defaults(user.get("defaults"))
    own = {k: v for k, v in user.items() if k != "defaults"}
    groups = bundled_groups()
    result = Composition(data={}, problems=list(problems))
    if choice_overrides:
        for entry in entries:
            if entry.group in choice_overrides and entry.package is None:
                entry.option = choice_overrides[entry.group]
    if not any(e.group is None for e in entries):
        entries.append(DefaultsEntry(None, None, len(entries)))
    for entry in entries:
        if entry.group is None:
            result.data = merge(result.data, own)
            continue
        options = groups.get(entry.group)
        if options is None:
            known = ", ".join(sorted(groups))
            result.problems.append(
                (entry.index, f"unknown config group '{entry.group}' (0.2.6 has: {known})")
            )
            continue
        if entry.option not in options:
            available = ", ".join(sorted(options))
            result.problems.append(
                (
                    entry.index,
                    f"Could not find '{entry.group}/{entry.option}' "
                    f"(available options in '{entry.group}': {available})",
                )
            )
            continue
        values: Any = _group_values(entry.group, entry.option)
        if entry.package is None:
            result.choices[entry.group] = entry.option
        for key in reversed(entry.target):
            values = {key: values}
        result.data = merge(result.data, values)
    return result
