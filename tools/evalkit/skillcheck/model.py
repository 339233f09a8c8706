"""What check-skill knows about a skill tree once it has been read.

The loader fills these from disk; the rules only look at them (and, for a path that a
document names, ask the tree whether it exists).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from evalkit.skillcheck.config import Settings


@dataclass(frozen=True)
class Link:
    """A markdown link or image target, with the 1-based line it sits on."""

    target: str
    line: int


@dataclass(frozen=True)
class CodeSpan:
    """An inline code span's text and line."""

    text: str
    line: int


@dataclass(frozen=True)
class Fence:
    """A fenced code block: info-string language (lowercase, may be ''), body, first body line."""

    language: str
    body: str
    body_line: int


@dataclass
class Frontmatter:
    """SKILL.md's YAML frontmatter.

    `data` is None when the block is missing or does not parse (then `error` says why).
    `key_lines` maps each top-level key to the line it is on in SKILL.md.
    """

    data: dict[str, Any] | None
    error: str | None = None
    error_line: int | None = None
    key_lines: dict[str, int] = field(default_factory=dict)
    end_line: int = 0  # line of the closing `---` (0 when there is none)


@dataclass
class MarkdownDoc:
    rel: PurePosixPath  # path relative to the skill root
    text: str
    links: list[Link] = field(default_factory=list)
    code_spans: list[CodeSpan] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    # `<!-- evalkit: disable=SK013 -->` before a block: (first line, last line, rule ids).
    suppressions: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)

    def suppressed(self, rule_id: str, line: int | None) -> bool:
        return line is not None and any(
            first <= line <= last and rule_id in rules for first, last, rules in self.suppressions
        )

    @property
    def line_count(self) -> int:
        return len(self.text.splitlines())


@dataclass
class TextFile:
    rel: PurePosixPath
    text: str


@dataclass
class SkillTree:
    root: Path
    skill_md: MarkdownDoc
    frontmatter: Frontmatter
    docs: list[MarkdownDoc]  # every .md file, SKILL.md included
    text_files: list[TextFile]  # every readable text file, markdown included
    settings: Settings = field(default_factory=Settings)
    # Folder names that start a path in code (spec folders plus the skill's own).
    path_roots: tuple[str, ...] = ("scripts", "references", "assets")

    def exists(self, rel: PurePosixPath) -> bool:
        """True when `rel` (relative to the root, may contain '..') names a file or directory."""
        return (self.root / rel).exists()

    def inside(self, rel: PurePosixPath) -> bool:
        """True when `rel` stays inside the skill root once '..' segments are applied."""
        depth = 0
        for part in rel.parts:
            depth += -1 if part == ".." else (0 if part == "." else 1)
            if depth < 0:
                return False
        return True
