"""Run data as inert text: the one place a value from a run or a config becomes text,
Markdown, HTML or a shell word.

Anyone can edit a run (a metric key, a task directory name, a log line), and agents run
what `next:` prints, so every value is printed on one line with its control characters
shown as escapes, and is never markup or a command:

- `one_line`: C0 and C1 controls, DEL, the bidi embeddings, overrides and isolates
  (U+202A-202E, U+2066-2069) and the Unicode line and paragraph separators become
  `\\n`, `\\x1b`, `\\u202e` ...; `inert_data` does it to every string of a document.
- `md_text` and `md_code`: Markdown with no HTML, link, autolink, emphasis (`*` or `_`) or
  table-cell break from data; a code span no backtick in the value can close.
- `html_text`: HTML-escaped and on one line.
- `shell_word`: one shell word, redacted first and quoted after (shlex.quote; bash's
  `$'...'` when the value holds a control character, so it stays one line and exact);
  defined in evalkit.shellword, so the layers below the renderers quote the same way.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.render.redact import redact_text
from evalkit.shellword import NAMED as _NAMED
from evalkit.shellword import UNSAFE as _UNSAFE
from evalkit.shellword import shell_word


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(value: Any) -> str:
    """`value` as text on one line, every control or bidi character shown as an escape."""
    text = "" if value is None else str(value)
    if not _UNSAFE.search(text):
        return text  # the output stream redacts it as it is
    # redacted before escaping: a known secret holding a control character still matches
    return _UNSAFE.sub(lambda m: _escape(m.group(0)), redact_text(text))


def inert_data(value: Any) -> Any:
    """A JSON-like document with every string (keys included) passed through `one_line`;
    numbers, booleans and None kept, so a text view renders it as it would the original."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        return {inert_data(k): inert_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [inert_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(inert_data(v) for v in value)
    return value


def has_unsafe(text: str) -> bool:
    return _UNSAFE.search(text) is not None


# ---- Markdown -------------------------------------------------------------------------

_MD_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "|": "\\|",
        "\\": "\\\\",
        "`": "\\`",
        "[": "\\[",
        "]": "\\]",
        "*": "\\*",
        "~": "\\~",
    }
)
# GitHub's autolinks start at `scheme:` followed by `//` and at `www.`; an escaped `:` or
# `.` is the same character to a reader and no link to the renderer.
_AUTOLINK = re.compile(r"(?<=[A-Za-z0-9])(:)(?=//)|(?<![A-Za-z0-9])(www)(\.)", re.IGNORECASE)
# A run of `_` opens or closes emphasis unless a letter or digit stands on both sides of it
# (CommonMark's intraword rule): `gpqa_diamond` stays as written, `_x_` is escaped.
_UNDERSCORES = re.compile(r"_+")
_ALNUM = re.compile(r"[^\W_]")


def _underscores(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    inside = start > 0 and end < len(text)
    if inside and _ALNUM.match(text[start - 1]) and _ALNUM.match(text[end]):
        return match.group(0)
    return "\\_" * (end - start)


# What makes a line, or a list item, a block of its own when the value starts it: a heading,
# a list or a thematic break (`- #` is a list item holding an empty heading).
_BLOCK_START = re.compile(r"^( *)(?:([#+=_-])|(\d{1,9})([.)]))")


def _start(match: re.Match[str]) -> str:
    lead, mark, digits, punct = match.groups()
    return f"{lead}\\{mark}" if mark else f"{lead}{digits}\\{punct}"


def md_text(value: Any) -> str:
    """Run data as inert Markdown text: no HTML, no link, no code span, no cell break, no
    block (heading, list, rule) where the value starts a line."""
    text = one_line(value).translate(_MD_ESCAPES)
    text = _UNDERSCORES.sub(_underscores, text)
    text = _BLOCK_START.sub(_start, text, count=1)
    return _AUTOLINK.sub(lambda m: "\\:" if m.group(1) else f"{m.group(2)}\\.", text)


def md_code(value: Any, cell: bool = True) -> str:
    """A code span no backtick in the value can close early (HTML inside stays text), on
    one line; CELL: its `|` escaped, as a table cell needs (outside one it would show)."""
    text = one_line(value)
    text = text.replace("|", "\\|") if cell else text
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(body: str, info: str = "text") -> str:
    """A fenced code block around BODY (lines of our own layout holding run data) whose
    fence no backtick run in it can match."""
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


# ---- HTML -----------------------------------------------------------------------------


def html_text(value: Any) -> str:
    import html

    return html.escape(one_line(value))


__all__ = [
    "html_text",
    "inert_data",
    "md_code",
    "md_fence",
    "md_text",
    "one_line",
    "shell_word",
]
