"""YAML text -> plain Python data plus the source position of every node.

The text is composed by the launcher's own loader: nel 0.2.6 reads a config with
`hydra.compose` (nemo_evaluator_launcher/api/types.py), whose file source (hydra-core
1.3.8, hydra/_internal/core_plugins/file_config_source.py) calls `OmegaConf.load`, and
OmegaConf 2.3 loads with `omegaconf._utils.get_yaml_loader()`, a pure-Python
`yaml.SafeLoader` with its own float and no timestamp resolver. libyaml's scanner is more
lenient (a tab after a value or before a comment), so reading with it said "no findings"
for configs the launcher refuses. PyYAML's compose step keeps a start/end mark on each
node; we walk that tree once, build the data with the safe constructor (so `10:00:00`
becomes the integer 36000 as the launcher reads it) and record where each key path lives.
"""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import yaml

from evalkit.errors import InputError
from evalkit.inputs import MAX_YAML_DEPTH, yaml_error

Path = tuple  # a key path: str keys and int list indices, e.g. ("evaluation", "tasks", 0)

# Bounds that keep hostile input (alias bombs, huge files) from hanging preflight. A real
# nel config is a few kB and a few hundred nodes; these are orders of magnitude above.
MAX_BYTES = 500_000
MAX_NODES = 100_000  # nodes after alias expansion ("billion laughs" expands to 10**9)


class _DepthBound:
    """A nesting bound on PyYAML's (recursive) composer, shared by both loaders below."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise InputError(
                    f"YAML nested deeper than {MAX_YAML_DEPTH} levels; not read",
                    mark.name,
                    mark.line + 1,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


@functools.cache
def launcher_loader() -> type:
    """The launcher's YAML loader class, with the nesting bound."""
    from omegaconf._utils import get_yaml_loader  # what OmegaConf.load uses (omegaconf 2.3)

    class _Bounded(_DepthBound, get_yaml_loader()):
        pass

    return _Bounded


@functools.cache
def edit_loader() -> type | None:
    """libyaml's scanner and parser under the launcher's composer and resolvers.

    For texts an edit loop re-reads after each change (init, the fixer's rounds); about 7x
    faster than the pure-Python loader. On every YAML file of this repository the node
    trees, marks and tags are identical (tests/preflight/test_edit_loader.py). The loaders
    differ where libyaml accepts tabs the pure-Python scanner rejects, counts a byte-order
    mark into the offsets, and ends a text without a final newline one line later; so
    `parse_document(..., exact=False)` declines a text with any of these and falls back to
    the launcher's loader on any error. A fuzz of mutated configs found rarer shapes too
    (libyaml accepts `[0.1.6? 0]`, and marks an empty value in `[local: ]` one character
    later), which is why what a user is told (preflight's findings, the fixer's proof and
    remaining findings, init's acceptance) is always read by the exact loader.
    None where PyYAML was built without libyaml.
    """
    cparser = getattr(getattr(yaml, "_yaml", None), "CParser", None)
    if cparser is None:
        return None
    from yaml.composer import Composer
    from yaml.resolver import Resolver

    launcher = launcher_loader()

    # Composer before CParser: CParser's own C composer would skip the depth bound.
    class _Edit(_DepthBound, Composer, cparser, Resolver):
        yaml_implicit_resolvers = launcher.yaml_implicit_resolvers

        def __init__(self, stream: str):
            cparser.__init__(self, stream)
            Composer.__init__(self)
            Resolver.__init__(self)

    return _Edit


def compose_as_launcher(text: str, path: str) -> yaml.Node | None:
    """One document's node tree as the launcher's loader composes it; refusals name the line."""
    loader = None
    try:
        loader = launcher_loader()(text)  # its reader checks every character here
        loader.name = path
        return loader.get_single_node()
    except yaml.YAMLError as err:
        raise yaml_error(err, path, text) from None
    except RecursionError:  # within the depth bound, but called on an already deep stack
        raise InputError("YAML nesting too deep", path) from None
    finally:
        if loader is not None:
            loader.dispose()


def _compose_for_edit(text: str) -> yaml.Node | None:
    """The node tree by `edit_loader`; raises _NotFast where only the exact loader may say."""
    loader_class = edit_loader()
    if loader_class is None or "\t" in text or "\ufeff" in text or not text.endswith("\n"):
        raise _NotFast
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    except (yaml.YAMLError, InputError, RecursionError):
        raise _NotFast from None
    finally:
        loader.dispose()


class _NotFast(Exception):
    """The edit loader declines a text; the launcher's loader reads it instead."""


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


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [value for _, value in node.value]
    return []


def _has_cycle(root: yaml.Node) -> bool:
    """A recursive alias (`a: &a [*a]`): depth-first over distinct nodes, iteratively."""
    state: dict[int, int] = {}  # 1 on the current path, 2 done
    stack = [(root, iter(_children(root)))]
    state[id(root)] = 1
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            state[id(node)] = 2
            stack.pop()
        elif state.get(id(child)) == 1:
            return True
        elif id(child) not in state:
            state[id(child)] = 1
            stack.append((child, iter(_children(child))))
    return False


def _check_expansion(root: yaml.Node, path: str) -> None:
    """Refuse an alias bomb before building: a bare count of the nodes the build would
    visit (aliases expanded) costs a fraction of building 100 000 spans first. A recursive
    alias is left to the build, which names it; merge keys keep the build's own bound."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_NODES:
            if _has_cycle(root):
                return
            raise InputError(
                f"YAML expands to more than {MAX_NODES} values (an alias bomb?); not a nel config",
                path,
                node.start_mark.line + 1,
            )
        stack.extend(_children(node))


# The last parses of this process, by text: init re-reads its text after every edit and
# the fixer proves each candidate, often the same texts again (and the same template under
# another output name). Pure-Python composing is most of their cost. The file name enters
# only error messages (never cached) and YamlDoc.path; each caller gets its own copy. An
# exact parse serves both kinds of request, an edit parse only edit requests.
_PARSED: OrderedDict[tuple[str, bool], YamlDoc] = OrderedDict()
_PARSED_MAX = 256


def parse_document(text: str, path: str, *, exact: bool = True) -> YamlDoc:
    """Parse one YAML document whose top level must be a mapping.

    `exact=False` is for a text an edit loop made from one the exact loader read: it may
    be read by libyaml (see `edit_loader`), with the same data and spans.
    """
    key = (text, True)
    done = _PARSED.get(key)
    if done is None and not exact:
        key = (text, False)
        done = _PARSED.get(key)
    if done is None:
        done = _PARSED[key] = _parse_document(text, path, exact)
        if len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    else:
        _PARSED.move_to_end(key)
    spans, duplicates = dict(done.spans), list(done.duplicates)  # Span is frozen
    return YamlDoc(path, done.text, copy.deepcopy(done.data), spans, duplicates)


def _parse_document(text: str, path: str, exact: bool = True) -> YamlDoc:
    if len(text) > MAX_BYTES:
        raise InputError(
            f"file too large for a nel config ({len(text)} characters; limit {MAX_BYTES})",
            path,
        )
    root = None
    if not exact:
        try:
            root = _compose_for_edit(text)
        except _NotFast:
            exact = True
    if exact:
        root = compose_as_launcher(text, path)
    if root is None:
        raise InputError("empty YAML document, expected a nel config mapping", path, 1)
    if not isinstance(root, yaml.MappingNode):
        kind = "a list" if isinstance(root, yaml.SequenceNode) else "a scalar"
        raise InputError(f"the top level must be a mapping, found {kind}", path, 1)
    _check_expansion(root, path)
    doc = YamlDoc(path=path, text=text, data={})
    try:
        doc.data = _Builder(doc).build(root, ())
    except RecursionError:
        raise InputError("YAML nesting too deep", path) from None
    return doc
