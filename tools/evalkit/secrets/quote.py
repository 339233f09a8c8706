"""Secrets in text evalkit quotes but did not write: log lines, rollouts, rendered scripts.

Such text may hold a secret nobody announced, so it is searched for
- the value of a secret-named variable (`NAME=value`, `NAME: value`, `"NAME": "value"`,
  `export NAME=value`, `-o +deployment.env_vars.NAME=value`, `--api-key value`, a
  `Cookie:` or `Authorization:` header to the end of the line);
- a credential shape (evalkit.secrets.shapes), after JSON's `\\u0068` escapes of letters
  and digits are read as the characters they stand for;
- an exact value known to be secret (evalkit.secrets.known).
`quote` searches the whole line and only then cuts it, so a cut never shows a secret's
head. Every pattern starts at a literal or a boundary and has no nested quantifier: the
search is linear in the line's length (a 10 MB log line included).
"""

from __future__ import annotations

import re

from evalkit.secrets import is_harmless_value, is_secret_name
from evalkit.secrets.known import KNOWN, placeholder
from evalkit.secrets.shapes import find_shapes

QUOTE_LIMIT = 200  # characters of a log line shown

_KEYWORDS = ("TOKEN", "KEY", "SECRET", "PASS", "PWD", "PW", "CREDENTIAL", "AUTH", "COOKIE", "API")
# NAME then a separator then the value. The name starts at a boundary and is at most 160
# characters (possessive: no backtracking), so each start costs a bounded number of steps.
_ASSIGN = re.compile(
    r"(?<![\w.+-])(?P<name>[\w.+-]{1,160}+)(?P<sep>[\"']?[ \t]{0,8}[:=][ \t]{0,8})"
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\"?|'(?P<sq>[^'\n]*+)'?|(?P<bare>[^\s\"'\\<>&]++))"
)
# `--api-key VALUE` / `--hf-token VALUE`: a flag, a space, the value.
_FLAG = re.compile(
    r"(?<![\w.+-])(?P<name>--?[\w-]{1,160}+)(?P<sep>[ \t]{1,8})"
    r"(?P<bare>[^\s\"'\\<>&-][^\s\"'\\<>&]*+)"
)
# A header whose whole value is the credential (`Authorization: Token abc`, a cookie): the
# value runs to the end of the line, scheme word included; a quoted one is left to _ASSIGN.
_HEADER = re.compile(
    r"(?i)(?<![\w-])(?P<name>(?:proxy-)?authorization|(?:set-)?cookie)"
    r"(?P<sep>[ \t]{0,8}[:=][ \t]{0,8})(?P<value>[^\s\"'][^\n]*)"
)
# JSON's escape of a letter, digit, `_` or `-` (`\u0068f_...` is `hf_...`).
_ESCAPED = re.compile(r"\\u00(?P<hex>2[dD]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF])")


def _unescape(text: str) -> str:
    if "\\u00" not in text:
        return text
    return _ESCAPED.sub(lambda m: chr(int(m.group("hex"), 16)), text)


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, label) of every secret in `text`, by name and by shape."""
    found = [(start, end, label) for label, start, end in find_shapes(text)]
    upper = text.upper()
    if not any(word in upper for word in _KEYWORDS):
        return found
    for match in _HEADER.finditer(text):
        found.append((match.start("value"), match.end("value"), match.group("name")))
    for pattern in (_ASSIGN, _FLAG):
        for match in pattern.finditer(text):
            span = _assigned(match)
            if span is not None:
                found.append(span)
    return found


def _assigned(match: re.Match[str]) -> tuple[int, int, str] | None:
    name = match.group("name")
    groups = match.groupdict()
    kind = next(k for k in ("dq", "sq", "bare") if groups.get(k) is not None)
    value = groups[kind]
    if not is_secret_name(name) or is_harmless_value(value, name):
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
    text = _unescape(text)
    parts, at = [], 0
    for start, end, label in _merged(_spans(text)):
        parts += [text[at:start], placeholder(label)]
        at = end
    parts.append(text[at:])
    return KNOWN.replace("".join(parts))


def find_secrets(text: str, names: bool = True) -> list[tuple[str, str]]:
    """(label, value) of each secret in `text`; `names=False`: by shape only."""
    text = _unescape(text)
    spans = _spans(text) if names else [(s, e, lab) for lab, s, e in find_shapes(text)]
    return [(label, text[start:end]) for start, end, label in _merged(spans)]


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A line as evalkit shows it: stripped, redacted whole, then cut to `limit`."""
    return redact_quoted(text.strip())[:limit]


def secrets_in_file(text: str) -> list[tuple[int, str]]:
    """(line number, label) of each secret a file evalkit writes holds, by name or shape;
    each value is remembered, so no output shows it (the file itself keeps it)."""
    from evalkit.secrets.known import KNOWN

    found = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        for label, value in find_secrets(line):
            KNOWN.add(value, label)
            found.append((line_no, label))
    return found
