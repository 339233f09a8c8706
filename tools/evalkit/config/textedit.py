"""Line-preserving edits of a YAML config: every line not named by an edit stays as written.

Each edit parses the current text (evalkit.config.yamldoc gives the line and character
span of every key path), changes the few lines it owns and returns the new text, so the
template's comments, quoting and layout survive. A provenance note becomes a trailing
comment where the line has none, else a comment line just above the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import yaml

from evalkit.config.yamldoc import Path, Span, YamlDoc, format_path, parse_document
from evalkit.errors import EvalkitError


class EditError(EvalkitError):
    """The template no longer has the shape an edit expects (a template changed upstream)."""


PLAIN_SAFE = re.compile(r"[A-Za-z/][A-Za-z0-9_./@+-]*(?::[A-Za-z0-9_./@+-]+)*")


def yaml_scalar(value: Any) -> str:
    """One value as YAML text that reads back as the same value (plain when safe)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    # Plain only for text that starts with a letter or `/` and holds no YAML indicator:
    # digits first could be an int, float, 1e3 (a float to OmegaConf, a string to PyYAML)
    # or sexagesimal 1:30, so anything else is quoted and reads back as this string.
    if PLAIN_SAFE.fullmatch(text):
        try:
            if yaml.safe_load(text) == text:
                return text
        except yaml.YAMLError:
            pass
    return _double_quoted(text)


def _printable(code: int) -> bool:
    """Characters YAML allows raw in a double-quoted scalar (the spec's printable set)."""
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


def _double_quoted(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif _printable(code):
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


class Doc:
    """The text being edited; `doc` re-parses lazily after each change."""

    def __init__(self, text: str, name: str):
        self.text = text
        self.name = name
        self._doc: YamlDoc | None = None
        self.claimed: list[Path] = []  # keys an edit changes besides the one it was asked for

    def claim(self, path: Path) -> None:
        """Declare that the current edit also changes `path` (a fix that moves a value)."""
        self.claimed.append(tuple(path))

    @property
    def doc(self) -> YamlDoc:
        """The text as it stands, read for editing (libyaml where it reads as the launcher)."""
        if self._doc is None:
            self._doc = parse_document(self.text, self.name, exact=False)
        return self._doc

    def exact(self) -> YamlDoc:
        """The text as it stands, read by the launcher's own loader (what a user is told)."""
        return parse_document(self.text, self.name)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def replace_text(self, text: str) -> None:
        self.text = text
        self._doc = None

    def _set_lines(self, lines: list[str]) -> None:
        self.replace_text("\n".join(lines))

    def has(self, path: Path) -> bool:
        return tuple(path) in self.doc.spans

    def value(self, path: Path, default: Any = None) -> Any:
        node: Any = self.doc.data
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return default
        return node

    def _span(self, path: Path):
        span = self.doc.spans.get(tuple(path))
        if span is None:
            raise EditError(f"{self.name}: the template has no {format_path(path)}")
        return span

    def extent(self, path: Path) -> tuple[int, int]:
        """0-based first and last line of a key and its whole value.

        PyYAML ends a block value where the next token starts, often on the next key's
        line, so the last line is the last one indented deeper than the key (comment and
        blank lines at the end belong to what follows).
        """
        span = self._span(path)
        lines = self.lines
        first = (span.key_line or span.line) - 1
        indent = _indent(lines[first])
        last = min(span.end_line - 1, len(lines) - 1)
        while last > first and (
            not lines[last].strip()
            or lines[last].lstrip().startswith("#")
            or _indent(lines[last]) <= indent
        ):
            last -= 1
        return first, last

    # -- comments -------------------------------------------------------------------

    def note(self, path: Path, comment: str | None) -> None:
        """Attach a one-line provenance comment to the key at `path`."""
        if not comment:
            return
        span = self._span(path)
        index = (span.key_line or span.line) - 1
        lines = self.lines
        line = lines[index]
        tail_at = span.end - _offset(lines, index)
        if span.line == span.end_line and "# init:" in line[tail_at:]:
            line = line[:tail_at] + line[tail_at:].split("# init:")[0]  # an older init note
        one_line = span.line == span.end_line and span.style in (None, '"', "'")
        if one_line and "#" not in line[tail_at:]:
            lines[index] = f"{line.rstrip()}  # {comment}"
        else:
            indent = len(line) - len(line.lstrip())
            lines.insert(index, f"{' ' * indent}# {comment}")
        self._set_lines(lines)

    def comment_above(self, path: Path, comment: str) -> None:
        span = self._span(path)
        index = (span.key_line or span.line) - 1
        lines = self.lines
        indent = len(lines[index]) - len(lines[index].lstrip())
        lines.insert(index, f"{' ' * indent}# {comment}")
        self._set_lines(lines)

    # -- scalars --------------------------------------------------------------------

    def set(self, path: Path, value: Any, comment: str | None = None) -> None:
        """Replace a one-line scalar value in place (its trailing comment stays)."""
        span = self._span(path)
        if span.line != span.end_line and span.style not in (None, '"', "'"):
            raise EditError(f"{self.name}: {format_path(path)} is not a one-line scalar")
        new = yaml_scalar(value)
        rest = self.text[span.end :]
        pad = len(rest) - len(rest.lstrip(" "))
        if rest[pad : pad + 1] == "#" and pad > 2:  # keep an aligned trailing comment aligned
            rest = " " * max(2, pad - (len(new) - (span.end - span.start))) + rest[pad:]
        before = len(self.text)
        self.text = self.text[: span.start] + new + rest
        self._reread_scalar(tuple(path), span, new, value, len(self.text) - before)
        self.note(path, comment)

    def _reread_scalar(self, path: Path, span: Span, new: str, value: Any, delta: int) -> None:
        """After `set`: the parse brought up to date without re-reading the text, where
        that is sure to give what a re-read would (tests/preflight/test_edit_reread.py):
        a one-line string written on a line of its own text, at no alias or merge key (a
        node the text reaches twice would change at both). Else the next read re-parses."""
        doc, self._doc = self._doc, None
        shared = doc is not None and any(
            other.start == span.start and p != path for p, other in doc.spans.items()
        )
        if doc is None or shared or not isinstance(value, str) or span.line != span.end_line:
            return
        if "\n" in new:
            return
        old_end, spans = span.end, {}
        for key, other in doc.spans.items():
            if other.start >= old_end:  # after the edit: every offset moves
                other = replace(other, start=other.start + delta, end=other.end + delta)
            elif other.end >= old_end:  # holds the edit (a parent)
                other = replace(other, end=other.end + delta)
            spans[key] = other
        style = '"' if new.startswith('"') else None
        spans[path] = replace(span, end=span.start + len(new), style=style)
        data = _with_value(doc.data, path, value)  # the old YamlDoc stays as it was
        self._doc = YamlDoc(doc.path, self.text, data, spans, doc.duplicates)

    def rename_key(self, path: Path, new_key: str) -> None:
        span = self._span(path)
        index = (span.key_line or span.line) - 1
        lines = self.lines
        old_key = str(path[-1])
        head, sep, rest = lines[index].partition(old_key + ":")
        if not sep:
            raise EditError(f"{self.name}: cannot find the key {format_path(path)}")
        lines[index] = head + new_key + ":" + rest
        self._set_lines(lines)

    # -- whole keys -----------------------------------------------------------------

    def delete(self, path: Path, with_comments: bool = True) -> None:
        """Remove a key and its value, and the comment lines directly above it."""
        first, last = self.extent(path)
        lines = self.lines
        indent = _indent(lines[first])
        if with_comments:
            while first > 0:
                above = lines[first - 1]
                stripped = above.lstrip()
                if stripped.startswith("#") and len(above) - len(stripped) == indent:
                    first -= 1
                else:
                    break
        del lines[first : last + 1]
        self._set_lines(lines)

    def add(self, parent: Path, key: str, value: Any, comment: str | None = None) -> None:
        """Add `key: value` (a scalar or a mapping of scalars) as the last child of `parent`."""
        span = self._span(parent)
        lines = self.lines
        parent_index = (span.key_line or span.line) - 1
        parent_indent = len(lines[parent_index]) - len(lines[parent_index].lstrip())
        children = self.value(parent)
        if isinstance(children, dict) and children:
            first_child = self._span(tuple(parent) + (next(iter(children)),))
            child_line = lines[(first_child.key_line or first_child.line) - 1]
            indent = len(child_line) - len(child_line.lstrip())
        else:
            indent = parent_indent + 2
        _, last = self.extent(parent)
        if not isinstance(children, dict) or not children:
            # `parent: {}` / `parent: ???` / `parent:` becomes a block mapping.
            head = lines[parent_index]
            key_text = head[: head.index(":") + 1] if ":" in head else head
            lines[parent_index] = key_text
            last = parent_index
        new = _block(key, value, indent)
        if comment:
            new[0] = f"{new[0]}  # {comment}" if len(new) == 1 else new[0]
            if len(new) > 1:
                new.insert(0, f"{' ' * indent}# {comment}")
        lines[last + 1 : last + 1] = new
        self._set_lines(lines)

    # -- folded blocks (deployment.command, gym params) -------------------------------

    def block_lines(self, path: Path) -> tuple[int, int]:
        """0-based [first, last] line indices of a block scalar's content."""
        span = self._span(path)
        if span.style not in ("|", ">"):
            raise EditError(f"{self.name}: {format_path(path)} is not a block scalar")
        _, last = self.extent(path)
        return span.line, last  # the content starts on the line after the indicator

    def flag_index(self, path: Path, flag: str) -> int | None:
        first, last = self.block_lines(path)
        for i in range(first, last + 1):
            words = self.lines[i].split()
            if words and (words[0] == flag or words[0].startswith(flag + "=")):
                return i
        return None

    def set_flag(self, path: Path, flag: str, value: Any | None, after: str | None = None) -> None:
        """Give `flag` this value (None: a bare switch), adding its line when it is absent."""
        lines = self.lines
        text = flag if value is None else f"{flag} {value}"
        index = self.flag_index(path, flag)
        if index is not None:
            indent = len(lines[index]) - len(lines[index].lstrip())
            lines[index] = " " * indent + text
        else:
            first, last = self.block_lines(path)
            anchor = self.flag_index(path, after) if after else None
            at = (anchor if anchor is not None else last) + 1
            indent = len(lines[first]) - len(lines[first].lstrip())
            lines.insert(at, " " * indent + text)
        self._set_lines(lines)

    def drop_flag(self, path: Path, flag: str) -> None:
        index = self.flag_index(path, flag)
        if index is not None:
            lines = self.lines
            del lines[index]
            self._set_lines(lines)

    def replace_in(self, path: Path, old: str, new: str) -> int:
        """Replace text inside one value's span; returns how many times it occurred."""
        span = self._span(path)
        inside = self.text[span.start : span.end]
        count = inside.count(old)
        if count:
            self.text = self.text[: span.start] + inside.replace(old, new) + self.text[span.end :]
            self._doc = None
        return count


def _with_value(node: Any, path: Path, value: Any) -> Any:
    """A copy of `node` with `value` at `path`; only the containers on the path are new."""
    if not path:
        return value
    out = dict(node) if isinstance(node, dict) else list(node)
    out[path[0]] = _with_value(node[path[0]], path[1:], value)
    return out


def _offset(lines: list[str], index: int) -> int:
    """Character offset of the start of line `index`."""
    return sum(len(line) + 1 for line in lines[:index])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block(key: str, value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, Mapping):
        out = [f"{pad}{key}:"]
        for k, v in value.items():
            out += _block(yaml_scalar(str(k)), v, indent + 2)  # host paths as keys
        return out
    return [f"{pad}{key}: {yaml_scalar(value)}"]
