"""Secrets in text evalkit quotes but did not write: log lines, rollouts, rendered scripts.

Such text may hold a secret nobody announced, so it is searched for
- the value of a secret-named variable (`NAME=value`, `NAME: value`, `"NAME": "value"`,
  `export NAME=value`, `-o +deployment.env_vars.NAME=value`, `--api-key value`, a
  `Cookie:` or `Authorization:` header to the end of the line);
- a credential shape (evalkit.secrets.shapes), looking through JSON's `\\u0068` escapes
  of letters and digits (the text shown keeps its escapes; only the secret is replaced);
- an exact value known to be secret (evalkit.secrets.known).
`quote` searches the whole line and only then cuts it, so a cut never shows a secret's
head. Every pattern starts at a literal or a boundary and has no nested quantifier: the
search is linear in the line's length (a 10 MB log line included).
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections.abc import Mapping
from typing import Any

from evalkit.secrets.known import KNOWN, placeholder
from evalkit.secrets.names import is_harmless_value, is_secret_name
from evalkit.secrets.shapes import find_shapes
from evalkit.secrets.shell import without_comments

QUOTE_LIMIT = 200  # characters of a log line shown

_KEYWORDS = ("TOKEN", "KEY", "SECRET", "PASS", "PWD", "PW", "CREDENTIAL", "AUTH", "COOKIE", "API")
# NAME then a separator; the value is read after it only for a secret name, so a value
# never hides the next assignment (`Error: WANDB_API=...`). The name starts at a boundary
# and is at most 160 characters (possessive: no backtracking).
_ASSIGN = re.compile(r"(?<![\w.+-])(?P<name>[\w.+-]{1,160}+)[\"']?[ \t]{0,8}[:=][ \t]{0,8}")
_VALUE = re.compile(
    r"\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\"?|'(?P<sq>[^'\n]*+)'?|(?P<bare>[^\s\"'\\<>&]++)"
)
# `--api-key VALUE` / `--hf-token VALUE`: a flag, a space, the value.
_FLAG = re.compile(r"(?<![\w.+-])(?P<name>--?[\w-]{1,160}+)[ \t]{1,8}(?=[^\s\"'\\<>&-])")
# A header whose whole value is the credential (`Authorization: Token abc`, a cookie): the
# value runs to the end of the line, scheme word included; a quoted one is left to _ASSIGN.
_HEADER = re.compile(
    r"(?i)(?<![\w-])(?P<name>(?:proxy-)?authorization|(?:set-)?cookie)"
    r"(?P<sep>[ \t]{0,8}[:=][ \t]{0,8})(?P<value>[^\s\"'][^\n]*)"
)
# JSON's escape of a letter, digit, `_` or `-` (`\u0068f_...` is `hf_...`).
_ESCAPED = re.compile(r"\\u00(?P<hex>2[dD]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF])")


def _unescaped(text: str) -> tuple[str, list[int]]:
    """`text` with the escapes read, and where each escape stands in it (sorted), so a
    span found there is cut from `text` itself."""
    if "\\u00" not in text:
        return text, []
    parts, marks, at = [], [], 0
    for match in _ESCAPED.finditer(text):
        parts += [text[at : match.start()], chr(int(match.group("hex"), 16))]
        marks.append(match.start() - 5 * len(marks))  # each escape is 6 characters for 1
        at = match.end()
    parts.append(text[at:])
    return "".join(parts), marks


def _original(position: int, marks: list[int]) -> int:
    return position + 5 * bisect.bisect_left(marks, position)


def _secret_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, label) in `text` itself, merged, escapes looked through."""
    plain, marks = _unescaped(text)
    spans = _merged(_spans(plain))
    if not marks:
        return spans
    return [(_original(a, marks), _original(b, marks), lab) for a, b, lab in spans]


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, label) of every secret in `text`, by name and by shape."""
    found = [(start, end, label) for label, start, end in find_shapes(text)]
    upper = text.upper()
    if not any(word in upper for word in _KEYWORDS):
        return found
    for match in _HEADER.finditer(text):
        found.append((match.start("value"), match.end("value"), match.group("name")))
    covered = 0  # the end of the last value read: each character is read as a value once
    names = heapq.merge(_ASSIGN.finditer(text), _FLAG.finditer(text), key=lambda m: m.start())
    for match in names:
        if match.start() < covered or not is_secret_name(match.group("name")):
            continue
        value = _VALUE.match(text, match.end())
        if value is None:
            continue
        covered = value.end()
        span = _assigned(match.group("name"), value)
        if span is not None:
            found.append(span)
    return found


def _assigned(name: str, match: re.Match[str]) -> tuple[int, int, str] | None:
    groups = match.groupdict()
    kind = next(k for k in ("dq", "sq", "bare") if groups.get(k) is not None)
    value = groups[kind]
    if is_harmless_value(value, name):
        return None
    start, end = match.span(kind)
    if value.startswith("lit:"):
        start += 4
    if kind == "bare" and value.endswith(","):  # the comma after a JSON value stays
        end -= 1
    return (start, end, name.rsplit(".", 1)[-1].lstrip("+-")) if end > start else None


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for start, end, label in sorted(spans):
        if out and start <= out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, label))
    return out


def redact_quoted(text: str) -> str:
    """`text` with every secret it holds replaced by `<redacted:LABEL>`."""
    if not text:
        return text
    parts, at = [], 0
    for start, end, label in _secret_spans(text):
        parts += [text[at:start], placeholder(label)]
        at = end
    parts.append(text[at:])
    return KNOWN.replace("".join(parts))


def find_secrets(text: str, names: bool = True) -> list[tuple[str, str]]:
    """(label, value) of each secret in `text`, as written there; `names=False`: by
    shape only."""
    if names:
        return [(label, text[a:b]) for a, b, label in _secret_spans(text)]
    plain, marks = _unescaped(text)
    found = []
    for label, a, b in find_shapes(plain):
        if marks:
            a, b = _original(a, marks), _original(b, marks)
        found.append((label, text[a:b]))
    return found


def config_secrets(text: str) -> list[tuple[str, str]]:
    """(label, value) of each secret a config string holds. A string with a blank may be
    a command: its NAME=value assignments are read outside its shell comments (`# SECRETS:
    set -x ...` assigns nothing), while a credential shape counts anywhere, comments
    included. A path has no blank: it is searched by shape only."""
    if not any(c.isspace() for c in text):
        return find_secrets(text, names=False)
    code = without_comments(text)
    if code == text:
        return find_secrets(text)
    found = find_secrets(code)
    seen = {value for _, value in found}
    return found + [hit for hit in find_secrets(text, names=False) if hit[1] not in seen]


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A line as evalkit shows it: stripped, redacted whole, then cut to `limit`."""
    return redact_quoted(text.strip())[:limit]


def secrets_in_file(text: str) -> list[tuple[int, str]]:
    """(line number, label) of each secret a file evalkit writes holds, by name or shape;
    each value is remembered, so no output shows it (the file itself keeps it)."""
    found = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        for label, value in find_secrets(line):
            KNOWN.add(value, label)
            found.append((line_no, label))
    return found


def remember_config(value: Any, name: str | None = None) -> None:
    """Every secret a config tree holds: values under secret names, credential shapes, and
    secret-named assignments inside command strings (`export WANDB_API_KEY=...`)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            remember_config(item, str(key))
    elif isinstance(value, (list, tuple)):
        for item in value:
            remember_config(item, name)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value)
        if name and is_secret_name(name) and not is_harmless_value(text, name):
            KNOWN.add(text, name)
        elif isinstance(value, str):
            for label, found in config_secrets(text):
                KNOWN.add(found, label)
