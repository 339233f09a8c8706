"""Hydra `defaults:` composition against the launcher 0.2.6 bundled groups (as data).

The launcher composes only the user file's own `defaults:` list (its packaged
default.yaml is not merged), in list order, with `_self_` marking where the file's own
values go; without `_self_` the file's values still win. Merging follows OmegaConf:
mappings merge key by key, anything else is replaced.

Files beside the config count too: the launcher hands Hydra the config's own directory
as the primary config source (nemo-evaluator-launcher 0.2.6, api/types.py:77,
`hydra.initialize_config_dir(config_dir=config_path.parent)`), and Hydra 1.3.8 searches
that directory before the `hydra.searchpath` entries the launcher adds for its bundled
groups (hydra/_internal/utils.py:201 puts "main" first; config_loader_impl.py:206-208
appends the searchpath after it). So `- _endpoints` is `_endpoints.yaml` next to the
config, merged at the root, and `- deployment: mine` is `deployment/mine.yaml` there
before any bundled option of that name.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from evalkit.inputs import read_text

GROUPS_RESOURCE = "nel-0.2.6-groups.yaml"
# A sibling's own `defaults:` may name further siblings; Hydra follows them (each file is
# composed once here, a cycle is one finding), and a chain longer than this is refused.
MAX_SIBLING_DEPTH = 32
# Hydra 1.3.8 has no cycle check: a defaults list that leads back to itself recurses until
# Python gives up (checked with the real launcher: `nel run --dry-run` exits 1 there).
CYCLE = (
    "defaults lead back to {name} ({chain}): Hydra 1.3.8 follows them until "
    "RecursionError (maximum recursion depth exceeded), and nel exits 1"
)
# `- ../other/x` (checked with nel 0.2.6 --dry-run): Hydra reads the file beside the
# config's parent but takes `../other` for a config group, so the values land under the
# package made of that path ('', '', '', 'other'), not where the list puts them.
OUTSIDE = (
    "defaults entry '{item}' names a file outside the config's directory: Hydra 1.3.8 "
    "reads it but merges its values under the key path {package!r} (its path taken for "
    "a config group), not at the root"
)
# Reads `name.yaml` (a path relative to the config's directory): its mapping, or None
# when no such file exists there.
SiblingLoader = Callable[[str], "dict | None"]


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
    group: str | None  # None for _self_ and for a config named without a group
    option: str | None  # None for _self_
    index: int  # position in the user's list (for its line)
    package: str | None = None  # Hydra `@package`: where the values go (default: the group)

    @property
    def is_self(self) -> bool:
        return self.group is None and self.option is None

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
    # files beside the config it merged, with the key path their values went under
    siblings: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # (list index, file) it names beside the config that are not there
    missing: list[tuple[int, str]] = field(default_factory=list)
    # each sibling file composed once (with its own defaults), by name
    composed: dict[str, dict] = field(default_factory=dict)
    chain: list[str] = field(default_factory=list)  # sibling files being composed
    options: dict = field(default_factory=dict)  # (group, option) -> its values, once

    def problem(self, index: int | None, message: str) -> None:
        if (index, message) not in self.problems:
            self.problems.append((index, message))

    def lacks(self, index: int, name: str) -> None:
        if name not in (known for _, known in self.missing):
            self.missing.append((index, name))


def parse_defaults(raw: Any) -> tuple[list[DefaultsEntry], list[tuple[int | None, str]]]:
    entries: list[DefaultsEntry] = []
    problems: list[tuple[int | None, str]] = []
    if raw is None:
        return entries, problems
    if not isinstance(raw, list):
        return entries, [(None, "`defaults` must be a list")]
    for i, item in enumerate(raw):
        if isinstance(item, str) and item.startswith("/"):
            item = item.lstrip("/")  # Hydra: a leading / is the config root, not the disk's
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
        elif isinstance(item, str) and item.strip() and item.strip() != "_self_":
            # `- _endpoints`: a config of the primary directory, merged at the root
            name, _, package = item.strip().partition("@")
            entries.append(DefaultsEntry(None, name, i, package or None))
        else:
            problems.append((i, f"unsupported defaults entry {item!r}"))
    return entries, problems


def _sibling(loader: SiblingLoader | None, rel: str) -> dict | None:
    """The mapping of `rel` beside the config, or None when there is none."""
    if loader is None:
        return None
    data = loader(rel)
    return data if isinstance(data, dict) else ({} if data is not None else None)


def _group_values(
    group: str,
    option: str,
    loader: SiblingLoader | None = None,
    seen: tuple = (),
    memo: dict | None = None,
) -> dict | None:
    """An option's values (its own group-relative defaults applied): the file beside the
    config first, else the bundled one; None when neither exists. Each option is composed
    once per composition (MEMO), however many lists name it."""
    memo = {} if memo is None else memo
    if (group, option) not in memo:
        memo[(group, option)] = _group_values_once(group, option, loader, seen, memo)
    return memo[(group, option)]


def _group_values_once(
    group: str, option: str, loader: SiblingLoader | None, seen: tuple, memo: dict
) -> dict | None:
    own = _sibling(loader, f"{group}/{option}.yaml")
    if own is not None:
        raw = dict(own)
    elif option in bundled_groups().get(group, {}):
        raw = dict(bundled_groups()[group][option])
        raw.pop("summarised", None)
    else:
        return None
    own_defaults = raw.pop("defaults", None)
    if not isinstance(own_defaults, list) or not own_defaults:
        return raw
    out: dict = {}
    for item in own_defaults:
        if item == "_self_":
            out = merge(out, raw)
        elif (
            isinstance(item, str) and item not in (*seen, option) and len(seen) < MAX_SIBLING_DEPTH
        ):
            values = _group_values(group, item, loader, seen + (option,), memo)
            out = merge(out, values or {})
    if "_self_" not in own_defaults:
        out = merge(out, raw)
    return out


def _not_found(entry: DefaultsEntry, loader: SiblingLoader | None) -> str:
    options = set(bundled_groups().get(entry.group or "", {}))
    available = ", ".join(sorted(options))
    where = " or beside the config" if loader is not None else ""
    return (
        f"Could not find '{entry.group}/{entry.option}' "
        f"(available options in '{entry.group}': {available}{where})"
    )


def _outside(name: str) -> str | None:
    """The key path Hydra gives a name that climbs out of the config's directory, or None."""
    if ".." not in Path(name).parts:
        return None
    return name.rpartition("/")[0].replace("/", ".")


def _root_sibling(
    entry: DefaultsEntry, result: Composition, loader: SiblingLoader | None, index: int
) -> dict | None:
    """A config of the primary directory (`- _endpoints`), composed once: its values with
    its own defaults applied, or None (missing, a cycle, too deep)."""
    name = f"{entry.option}.yaml"
    if name in result.chain:
        chain = " -> ".join([*result.chain[result.chain.index(name) :], name])
        result.problem(index, CYCLE.format(name=name, chain=chain))
        return None
    if name in result.composed:
        if (name, entry.target) not in result.siblings:  # the same file under another key
            result.siblings.append((name, entry.target))
        return result.composed[name]
    values = _sibling(loader, name)
    if values is None:
        result.lacks(index, name)
        return None
    if len(result.chain) >= MAX_SIBLING_DEPTH:
        result.problem(
            index, f"defaults nest more than {MAX_SIBLING_DEPTH} files deep; not followed"
        )
        return None
    result.siblings.append((name, entry.target))
    result.chain.append(name)
    try:
        values = _compose_list(values, result, loader, None, index, len(result.chain))
    finally:
        result.chain.pop()
    result.composed[name] = values
    return values


def _compose_list(
    user: dict,
    result: Composition,
    loader: SiblingLoader | None,
    choice_overrides: dict[str, str] | None = None,
    at: int | None = None,
    depth: int = 0,
) -> dict:
    """`user` with its own `defaults:` list merged as Hydra merges it. `at` is the index
    in the top file's list that led here (nested problems are reported there)."""
    entries, problems = parse_defaults(user.get("defaults"))
    for i, m in problems:
        result.problem(i if at is None else at, m)
    own = {k: v for k, v in user.items() if k != "defaults"}
    groups = bundled_groups()
    if choice_overrides:
        for entry in entries:
            if entry.group in choice_overrides and entry.package is None:
                entry.option = choice_overrides[entry.group]
    if not any(e.is_self for e in entries):
        entries.append(DefaultsEntry(None, None, len(entries)))
    data: dict = {}
    for entry in entries:
        index = entry.index if at is None else at
        if entry.is_self:
            data = merge(data, own)
            continue
        name = f"{entry.group}/{entry.option}" if entry.group is not None else str(entry.option)
        package = _outside(name)
        if package is not None:
            result.problem(index, OUTSIDE.format(item=name, package=package))
            continue
        if entry.group is None:
            values = _root_sibling(entry, result, loader, index)
            if values is None:
                continue
        else:
            beside = _sibling(loader, f"{entry.group}/{entry.option}.yaml") is not None
            if entry.group not in groups and not beside:
                names = ", ".join(sorted(groups))
                result.problem(index, f"unknown config group '{entry.group}' (0.2.6 has: {names})")
                continue
            values = _group_values(entry.group, str(entry.option), loader, memo=result.options)
            if values is None:
                result.problem(index, _not_found(entry, loader))
                continue
            if (
                beside
                and (f"{entry.group}/{entry.option}.yaml", entry.target) not in result.siblings
            ):
                result.siblings.append((f"{entry.group}/{entry.option}.yaml", entry.target))
            if entry.package is None and depth == 0:
                result.choices[entry.group] = str(entry.option)
        for key in reversed(entry.target):
            values = {key: values}
        data = merge(data, values)
    return data


def compose(
    user: dict,
    choice_overrides: dict[str, str] | None = None,
    siblings: SiblingLoader | None = None,
) -> Composition:
    """Effective config: the user's defaults (with any `-o group=option`) merged with it.
    `siblings` reads files beside the config (None: the config has no directory)."""
    result = Composition(data={})
    result.data = _compose_list(user, result, siblings, choice_overrides)
    return result
