"""check-skill settings: Agent Skills spec defaults, then a repository's own table.

A repository sets its house conventions in `[tool.evalkit.check-skill]` of a
`pyproject.toml`, or at the top level of a `.evalkit.toml` (`[check-skill]` table). The
nearest such file from the skill directory up to the repository root wins. Every value
remembers where it came from, for `check-skill --rules`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SPEC = "Agent Skills default"
SEVERITIES = ("error", "warning", "info")
VCS_MARKERS = (".git", ".hg", ".svn")


@dataclass
class Settings:
    """What the rules read. Defaults follow the spec and the reference validator."""

    # The spec recommends keeping SKILL.md under 500 lines.
    max_lines: int = 500
    # House conventions, off unless a repository turns them on.
    require_when: bool = False
    retired_names: tuple[str, ...] = ()
    # Rule ids switched off, and per-rule severity overrides.
    disable: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    # Where each setting came from (key as written in the table -> source).
    sources: dict[str, str] = field(default_factory=dict)
    config_file: Path | None = None

    def source(self, key: str) -> str:
        return self.sources.get(key, SPEC)


# Table key -> (attribute, expected type) for the values a table may set.
KEYS: dict[str, tuple[str, type]] = {
    "max-lines": ("max_lines", int),
    "require-when": ("require_when", bool),
    "retired-names": ("retired_names", list),
    "disable": ("disable", list),
    "severity": ("severity", dict),
}


def repo_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds a VCS marker (.git file or dir)."""
    for directory in [start, *start.parents]:
        if any((directory / m).exists() for m in VCS_MARKERS):
            return directory
    return None


def find_config(skill_root: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest file with a check-skill table, from the skill up to the repository root."""
    start = skill_root.resolve()
    top = repo_root(start) or start
    for directory in [start, *start.parents]:
        for name, path_in_file in (
            (".evalkit.toml", ("check-skill",)),
            ("pyproject.toml", ("tool", "evalkit", "check-skill")),
        ):
            candidate = directory / name
            if not candidate.is_file():
                continue
            table = _table(candidate, path_in_file)
            if table is not None:
                return candidate, table
        if directory == top:
            break
    return None


def _table(path: Path, keys: tuple[str, ...]) -> dict[str, Any] | None:
    try:
        data: Any = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"cannot read settings: {err}", path) from None
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    if not isinstance(data, dict):
        raise InputError(f"[{'.'.join(keys)}] must be a table", path)
    return data


def load_settings(skill_root: Path, known_rules: set[str]) -> Settings:
    settings = Settings()
    found = find_config(skill_root)
    if found is None:
        return settings
    path, table = found
    settings.config_file = path
    table_name = "check-skill" if path.name == ".evalkit.toml" else "tool.evalkit.check-skill"
    label = f"{path.name} [{table_name}]"
    for key, value in table.items():
        if key not in KEYS:
            raise InputError(
                f"unknown check-skill setting {key!r} (known: {', '.join(KEYS)})", path
            )
        attr, kind = KEYS[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            kinds = {int: "an integer", bool: "true or false", list: "a list", dict: "a table"}
            raise InputError(f"check-skill setting {key!r} must be {kinds[kind]}", path)
        if kind is list:
            if not all(isinstance(v, str) for v in value):
                raise InputError(f"check-skill setting {key!r} must list strings", path)
            value = tuple(value)
        if key in ("disable", "severity"):
            unknown = sorted(set(value) - known_rules)
            if unknown:
                raise InputError(f"{key}: unknown rule id(s) {', '.join(unknown)}", path)
        if key == "severity":
            bad = {k: v for k, v in value.items() if v not in SEVERITIES}
            if bad:
                raise InputError(f"severity must be one of {', '.join(SEVERITIES)}: {bad}", path)
        setattr(settings, attr, value)
        settings.sources[key] = str(label)
    return settings
