"""A budget on what `${...}` references expand to, checked before anything resolves them.

OmegaConf expands references eagerly: ten references per level to the level below make a
1 KB file grow tenfold per level (seven levels: 75 s and 336 MB in preflight, and the
launcher would spend the same). The expanded size of every interpolated string is computed
here from the lengths alone, each referenced value measured once, so the check costs the
size of the file, not of the expansion; a config past the budget is refused with one line.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.config.yamldoc import Path, YamlDoc, format_path
from evalkit.errors import InputError

# A real config's longest interpolated value (a serve command) is a few kB expanded.
MAX_EXPANDED_VALUE = 64 * 1024  # characters of one interpolated string, expanded
MAX_EXPANDED_TOTAL = 1024 * 1024  # characters of all interpolated strings together
MAX_REFERENCE_DEPTH = 32  # references followed through references

# The text of each interpolation up to its end or a nested one, and in it a node name
# where OmegaConf reads one: first, or as a resolver argument (`${oc.select:a.b,x}`);
# leading dots are relative to the value's own node.
_BODY = re.compile(r"\$\{([^${}]*)")
_NAME = re.compile(r"(?:^|[:,])\s*(\.*[A-Za-z_][\w-]*(?:\.[\w-]+)*)")


def _target(data: Any, here: Path, name: str) -> Path | None:
    """The path `name` refers to from a value whose parent node is `here`, if it exists."""
    dots = len(name) - len(name.lstrip("."))
    if dots - 1 > len(here):
        return None
    path = tuple(here[: len(here) - dots + 1]) if dots else ()
    node = data
    for part in path:
        node = node[part]
    for part in name.lstrip(".").split("."):
        if isinstance(node, dict) and part in node:
            node, path = node[part], path + (part,)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node, path = node[int(part)], path + (int(part),)
        else:
            return None
    return path


class _Measure:
    def __init__(self, data: dict, doc: YamlDoc | None):
        self.data = data
        self.doc = doc
        self.memo: dict[Path, tuple[int, int]] = {}  # path -> (expanded size, reference depth)
        self.active: set[Path] = set()

    def refuse(self, path: Path, what: str) -> InputError:
        line = self.doc.line_of(path) if self.doc is not None else None
        where = self.doc.path if self.doc is not None else None
        key = f"{format_path(path)}: " if path else ""
        return InputError(f"{key}{what}; not resolved", where, line)

    def node(self, path: Path) -> Any:
        node = self.data
        for part in path:
            node = node[part]
        return node

    def size(self, path: Path, depth: int = 0) -> tuple[int, int]:
        """(characters the value at `path` expands to, longest reference chain from it),
        reached through `depth` references."""
        if path not in self.memo:
            if path in self.active:  # a cycle: OmegaConf reports it; nothing to add here
                return 0, 0
            self.active.add(path)
            try:
                self.memo[path] = self._measure(path, depth)
            finally:
                self.active.discard(path)
        total, height = self.memo[path]
        if depth + height > MAX_REFERENCE_DEPTH:
            raise self.refuse(path, f"more than {MAX_REFERENCE_DEPTH} references deep")
        return total, height

    def _measure(self, path: Path, depth: int) -> tuple[int, int]:
        node = self.node(path)
        if isinstance(node, dict):
            parts = [self.size(path + (k,), depth) for k in node]
            return sum(p[0] for p in parts), max((p[1] for p in parts), default=0)
        if isinstance(node, list):
            parts = [self.size(path + (i,), depth) for i in range(len(node))]
            return sum(p[0] for p in parts), max((p[1] for p in parts), default=0)
        if not isinstance(node, str) or "${" not in node:
            return len(str(node)), 0
        total, height = len(node), 0
        names = (m.group(1) for body in _BODY.findall(node) for m in _NAME.finditer(body))
        for name in names:
            target = _target(self.data, path[:-1], name)
            if target is None or target == path[: len(target)]:
                continue  # not a node, or the value itself or an ancestor (a cycle)
            if depth >= MAX_REFERENCE_DEPTH:
                raise self.refuse(path, f"more than {MAX_REFERENCE_DEPTH} references deep")
            size, below = self.size(target, depth + 1)
            total, height = total + size, max(height, below + 1)
            if total > MAX_EXPANDED_VALUE:
                raise self.refuse(
                    path, f"${{...}} expands to more than {MAX_EXPANDED_VALUE} characters"
                )
        return total, height


def check_expansion(data: dict, doc: YamlDoc | None = None) -> None:
    """Refuse a config whose interpolations expand past the budget (README, "Limits")."""
    measure = _Measure(data, doc)
    try:
        _check_all(measure, data)
    except RecursionError:  # references into deep containers, within each bound
        raise measure.refuse((), "references nested too deeply") from None


def _check_all(measure: _Measure, data: dict) -> None:
    total = 0
    stack: list[tuple[Path, Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
        elif isinstance(node, str) and "${" in node:
            total += measure.size(path)[0]
            if total > MAX_EXPANDED_TOTAL:
                raise measure.refuse(
                    path, f"interpolations expand to more than {MAX_EXPANDED_TOTAL} characters"
                )
