"""Small helpers shared by several check-skill rules (one rule's own helpers stay in it)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import PurePosixPath

import yaml

from evalkit.findings import Finding
from evalkit.inputs import MAX_YAML_DEPTH
from evalkit.skillcheck.model import MarkdownDoc, SkillTree
from evalkit.skillcheck.paths import code_paths, link_path

SKILL_MD = PurePosixPath("SKILL.md")
NAME_MAX = 64


def finding(rule_id, severity, message, file, line=None, fix=None, path=None) -> Finding:
    return Finding(rule_id, severity, message, path, str(file), line, fix)


# --- frontmatter ----------------------------------------------------------------------


def frontmatter_value(tree: SkillTree, key: str):
    """(value, line in SKILL.md) of a frontmatter key; line 1 when the key is absent."""
    data = tree.frontmatter.data or {}
    return data.get(key), tree.frontmatter.key_lines.get(key, 1)


def valid_name(name: str) -> bool:
    """The reference validator's test: lowercase letters (any script), digits, single
    inner hyphens, at most 64 characters after NFKC normalization."""
    name = unicodedata.normalize("NFKC", name.strip())
    return (
        1 <= len(name) <= NAME_MAX
        and name == name.lower()
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
        and all(c.isalnum() or c == "-" for c in name)
    )


# --- paths ----------------------------------------------------------------------------


def normalize(rel: PurePosixPath) -> PurePosixPath:
    """`rel` with '.' and '..' applied (a '..' above the start is dropped)."""
    parts: list[str] = []
    for part in rel.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def code_path_mentions(doc: MarkdownDoc, roots: tuple[str, ...]) -> Iterator[tuple[str, int]]:
    """(path, line) for every path named in the document's code spans and fenced blocks."""
    for span in doc.code_spans:
        for path, _ in code_paths(span.text, roots):
            yield path, span.line
    for fence in doc.fences:
        for path, offset in code_paths(fence.body, roots):
            yield path, fence.body_line + offset


def mentions(doc: MarkdownDoc, roots: tuple[str, ...]) -> set[PurePosixPath]:
    """Skill-root-relative paths a document names, by link or in code."""
    named = {PurePosixPath(p) for p, _ in code_path_mentions(doc, roots)}
    for link in doc.links:
        target = link_path(link.target)
        if target is not None:
            named.add(normalize(doc.rel.parent / target))
    return named


# --- fenced blocks --------------------------------------------------------------------

# `<name>` as written in documentation: a word in angle brackets, not `<<`, `<(` or `< file`.
PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z_][\w.:/-]*)>(?!>)")

# Documentation elides with `...`: such a block is a sketch, not broken code.
# `without_elisions` removes only those marks, so a block that still fails to parse
# afterwards has a real error.
_ELLIPSIS_LINE = re.compile(r"^[ \t]*(?:\.\.\.|\u2026)[ \t]*(?:#.*)?$", re.M)
_ELLIPSIS_ITEM = re.compile(r",\s*(?:\.\.\.|\u2026)(?=\s*[,)\]}])")
_ELLIPSIS_ONLY = re.compile(r"([\[{(])\s*(?:\.\.\.|\u2026)\s*([\]})])")


def without_elisions(text: str) -> str:
    text = _ELLIPSIS_LINE.sub("", text)
    text = _ELLIPSIS_ITEM.sub("", text)
    return _ELLIPSIS_ONLY.sub(r"\1\2", text)


def last_offset(text: str, offset: int) -> int:
    """Parsers report end-of-input one line past the text; keep the line inside it."""
    return max(0, min(offset, len(text.splitlines()) - 1))


def _too_deep(text: str) -> tuple[str, int] | None:
    """Nesting past evalkit's YAML bound, measured on the event stream (the parser keeps
    its own stack; the loader recurses and would raise RecursionError)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                problem = f"nested deeper than {MAX_YAML_DEPTH} levels (evalkit reads no deeper)"
                return problem, last_offset(text, event.start_mark.line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def yaml_problem(text: str) -> tuple[str, int] | None:
    """(problem, 0-based line offset) for text that does not parse as YAML, else None."""
    try:
        deep = _too_deep(text)
        if deep is not None:
            return deep
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        return problem, last_offset(text, mark.line if mark is not None else 0)
    except RecursionError:  # within the depth bound, but a stack that is already deep
        return "nested too deeply to load", 0
    return None
