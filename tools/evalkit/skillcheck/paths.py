"""Finding repository paths in link targets and in code (spans and fenced blocks).

Code is free text, so only words that start with one of the skill's top-level folders (or
a folder the Agent Skills spec names) count as paths; everything that is clearly not a
concrete path (placeholders, globs, variables) is left alone. `search_places` says where a
path that is not in the skill may still be found: the repository around the skill, then
its sibling directories.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from evalkit.skillcheck.config import repo_root

# The spec's optional folders; a skill's own top-level folders are added to these.
SPEC_ROOTS = ("scripts", "references", "assets")


@lru_cache(maxsize=64)
def _code_path_pattern(roots: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(r) for r in sorted(roots))
    return re.compile(r"(?<![\w./~$-])((?:" + names + r")/[\w./{},*?<>:#@+=~-]*)")


def skill_roots(root: Path, skipped: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Folder names that start a path in code: the spec's and the skill's own top-level ones."""
    own = {
        entry.name
        for entry in os.scandir(root)
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in skipped
    }
    return tuple(sorted(own | set(SPEC_ROOTS)))


def search_places(skill_root: Path) -> list[tuple[str, Path]]:
    """Where to look for a path that is not in the skill, nearest first, with a label.

    Each directory from the skill's parent up to the repository root (a monorepo names
    files from its root or from a `.claude/`-style folder), then each sibling directory
    (shared folders such as `common/`, or another skill). Without a VCS root only the
    parent and the siblings count; a skill that is itself the repository root has none.
    """
    root = skill_root.resolve()
    top = repo_root(root)
    places: list[tuple[str, Path]] = []
    if top == root:  # the skill is the repository: nothing around it belongs to it
        return places
    for directory in root.parents:
        places.append(
            ("the repository" if directory == top else "a folder above the skill", directory)
        )
        if top is None or directory == top:
            break
    parent = root.parent
    for entry in sorted(os.scandir(parent), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith(".") and Path(entry.path) != root:
            places.append((f"sibling folder {entry.name!r}", Path(entry.path)))
    return places


def find_elsewhere(skill_root: Path, rel: PurePosixPath) -> tuple[str, str] | None:
    """(label, path relative to the skill root) of the first place outside the skill that
    has `rel`, or None."""
    root = skill_root.resolve()
    for label, base in search_places(root):
        candidate = base / rel
        if candidate.exists():
            return label, os.path.relpath(candidate, root)
    return None


_DOT_SLASH = re.compile(r"(?<![\w.])\./")  # `./scripts/x` names the same file as `scripts/x`
_LINE_SUFFIX = re.compile(r":\d+(?:[-:]\d+)*$")
_BRACES = re.compile(r"\{([^{}]*)\}")
_TRAILING = ".,;:!?)'\""
_NOT_CONCRETE = set("<>*?$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def code_paths(text: str, roots: tuple[str, ...] = SPEC_ROOTS) -> list[tuple[str, int]]:
    """Concrete paths under `roots` named in a piece of code, with their 0-based line offset."""
    pattern = _code_path_pattern(tuple(roots))
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(text.splitlines()):
        for match in pattern.finditer(_DOT_SLASH.sub("", line)):
            for path in _clean(match.group(1)):
                found.append((path, offset))
    return found


def _clean(word: str) -> list[str]:
    word = word.split("#", 1)[0]
    word = word.rstrip(_TRAILING)
    word = _LINE_SUFFIX.sub("", word)
    word = word.rstrip(_TRAILING)
    if not word or _NOT_CONCRETE & set(word):
        return []
    return [p for p in expand_braces(word) if p and "{" not in p and "}" not in p]


def expand_braces(word: str) -> list[str]:
    """Shell-style brace lists: `a/{b,c}.md` -> `a/b.md`, `a/c.md` (nested lists too).

    Expanded innermost first, which yields bash's set of words.
    """
    match = _BRACES.search(word)
    if match is None or "," not in match.group(1):
        return [word]
    head, tail = word[: match.start()], word[match.end() :]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(expand_braces(head + option + tail))
    return list(dict.fromkeys(out))  # innermost lists expand first; drop the repeats


def link_path(target: str) -> PurePosixPath | None:
    """The local file a link target names, or None for URLs, bare anchors and absolute paths."""
    target = target.strip()
    if not target or target.startswith(("#", "/")) or _SCHEME.match(target):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return None
    return PurePosixPath(unquote(target))
