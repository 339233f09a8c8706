"""YAML text -> plain Python data plus the source position of every node.

PyYAML's compose step keeps a start/end mark on each node; we walk that tree once,
build the data with PyYAML's own safe constructor (so `10:00:00` becomes the integer
36000 exactly as the launcher's loader reads it) and record where each key path lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from evalkit.errors import InputError
from evalkit.inputs import yaml_error

Path = tuple  # a key path: str keys and int list indices, e.g. ("evaluation", "tasks", 0)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Bounds that keep hostile input (alias bombs, huge files) from hanging preflight. A real
# nel config is a few kB and a few hundred nodes; these are orders of magnitude above.
MAX_BYTES = 500_000
MAX_NODES = 100_000  # nodes after alias expansion ("billion laughs" expands to 10**9)


@dataclass(frozen=True)
class Span:
    """Where a node sits in the file: 1-based lines, 0-based character offsets."""

    line: int
    end_line: int
    start: int
    end: int
    style: str | None = None  # '|', '>', '"', "'" for scalars, None for plain/collections
    key_line: int | None = None  # line of the mapping key that holds this value


@dataclass
class YamlDoc:
    path: str
    text: str
    data: dict
    spans: dict[Path, Span] = field(default_factory=dict)
    duplicates: list[tuple[Path, int]] = field(default_factory=list)

    def line_of(self, path: Path) -> int | None:
        """Line of the key (or list item) at `path`, else of its nearest written ancestor."""
        probe = tuple(path)
        while probe:
            span = self.spans.get(probe)
            if span is not None:
                return span.key_line or span.line
            probe = probe[:-1]
        return None

    def line_in_value(self, path: Path, needle: str) -> int | None:
        """Line where `needle` first appears inside the written value at `path`."""
        span = self.spans.get(tuple(path))
        if span is None:
            return self.line_of(path)
        pos = self.text.find(needle, span.start, span.end) if needle else -1
        if pos < 0:
            return span.line
        return self.text.count("\n", 0, pos) + 1


def format_path(path: Path) -> str:
    """("evaluation", "tasks", 0, "name") -> "evaluation.tasks[0].name" (the launcher's form)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def override_path(path: Path) -> str:
    """("evaluation", "tasks", 0, "name") -> "evaluation.tasks.0.name", the form `nel run -o`
    accepts (its override grammar rejects the bracketed index of its own error messages)."""
    return ".".join(str(part) for part in path)


class _Builder:
    def __init__(self, doc: YamlDoc):
        self.doc = doc
        self.constructor = yaml.constructor.SafeConstructor()
        self.active: set[int] = set()
        self.nodes = 0

    def span(self, node: yaml.Node, key_node: yaml.Node | None) -> Span:
        style = getattr(node, "style", None) if isinstance(node, yaml.ScalarNode) else None
        return Span(
            line=node.start_mark.line + 1,
            end_line=node.end_mark.line + 1,
            start=node.start_mark.index,
            end=node.end_mark.index,
            style=style or None,
            key_line=key_node.start_mark.line + 1 if key_node is not None else None,
        )

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as err:
            raise yaml_error(err, self.doc.path) from None
        except (ValueError, TypeError, OverflowError) as err:
            raise InputError(
                f"bad YAML value: {err}", self.doc.path, node.start_mark.line + 1
            ) from None

    def build(self, node: yaml.Node, path: Path, key_node: yaml.Node | None = None) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise InputError(
                f"YAML expands to more than {MAX_NODES} values (an alias bomb?); not a nel config",
                self.doc.path,
                node.start_mark.line + 1,
            )
        self.doc.spans[path] = self.span(node, key_node)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if id(node) in self.active:
            raise InputError("recursive YAML alias", self.doc.path, node.start_mark.line + 1)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
            return self.mapping(node, path)
        finally:
            self.active.discard(id(node))

    def mapping(self, node: yaml.MappingNode, path: Path) -> dict:
        try:
            self.constructor.flatten_mapping(node)  # YAML merge keys (<<)
        except yaml.YAMLError as err:
            raise yaml_error(err, self.doc.path) from None
        out: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise InputError(
                    "mapping key must be a scalar", self.doc.path, key_node.start_mark.line + 1
                )
            key = self.scalar(key_node)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                key = str(key)
            if key in out:
                self.doc.duplicates.append((path + (key,), key_node.start_mark.line + 1))
            out[key] = self.build(value_node, path + (key,), key_node)
        return out


def parse_document(text: str, path: str) -> YamlDoc:
    """Parse one YAML document whose top level must be a mapping."""
    if len(text) > MAX_BYTES:
        raise InputError(
            f"file too large for a nel config ({len(text)} characters; limit {MAX_BYTES})",
            path,
        )
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None
    except (ValueError, TypeError) as err:  # e.g. surrogates the C scanner rejects
        raise InputError(f"malformed YAML: {err}", path) from None
    if root is None:
        raise InputError("empty YAML document, expected a nel config mapping", path, 1)
    if not isinstance(root, yaml.MappingNode):
        kind = "a list" if isinstance(root, yaml.SequenceNode) else "a scalar"
        raise InputError(f"the top level must be a mapping, found {kind}", path, 1)
    doc = YamlDoc(path=path, text=text, data={})
    try:
        doc.data = _Builder(doc).build(root, ())
    except RecursionError:
        raise InputError("YAML nesting too deep", path) from None
    return doc
