"""Finding repository paths in link targets and in code (spans and fenced blocks).

Code is free text, so only words that start with one of the skill's top-level folders count
as paths; everything that is clearly not a concrete path (placeholders, globs, variables)
is left alone.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import unquote

# Top-level folders whose names, at the start of a word in code, mean "a file in this skill".
PATH_ROOTS = ("references", "recipes", "scripts", "tools", "tests", "schemas")

_CODE_PATH = re.compile(r"(?<![\w./~$-])((?:" + "|".join(PATH_ROOTS) + r")/[\w./{},*?<>:#@+=~-]*)")
_DOT_SLASH = re.compile(r"(?<![\w.])\./")  # `./scripts/x` names the same file as `scripts/x`
_LINE_SUFFIX = re.compile(r":\d+(?:[-:]\d+)*$")
_BRACES = re.compile(r"\{([^{}]*)\}")
_TRAILING = ".,;:!?)'\""
_NOT_CONCRETE = set("<>*?$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def code_paths(text: str) -> list[tuple[str, int]]:
    """Concrete repo paths named in a piece of code, with their 0-based line offset."""
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(text.splitlines()):
        for match in _CODE_PATH.finditer(_DOT_SLASH.sub("", line)):
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
