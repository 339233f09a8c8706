"""Secrets never leave evalkit: every output line and file passes through `redact_text`.

Two things are redacted (which names are secret: evalkit.secrets, shared with preflight):
- the value of a secret-named variable (`NAME=value`, `NAME: value`, `"NAME": "value"`,
  `export NAME=value`, `-o +deployment.env_vars.NAME=value`, `--api-key value`);
- a string shaped like a credential (`SHAPES`, in evalkit.secrets), wherever it stands.
A value is replaced by `<redacted:NAME>` (the variable's name when known, else the shape).
Every pattern starts at a literal or a boundary and has no nested quantifier, so a scan
is linear in the line's length (a 10 MB log line included).
"""

from __future__ import annotations

import re
from typing import Any

# The name test and the harmless-value test are shared with preflight (NEL101, NEL103).
from evalkit.secrets import SHAPE_PATTERNS, is_secret_name
from evalkit.secrets import is_harmless_value as _harmless

_KEYWORDS = (
    "TOKEN",
    "KEY",
    "SECRET",
    "PASSW",
    "PASSPHRASE",
    "CREDENTIAL",
    "AUTHORIZATION",
    "COOKIE",
)
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
# value runs to the end of the line, scheme word included.
_HEADER = re.compile(
    r"(?i)(?<![\w-])(?P<name>(?:proxy-)?authorization|(?:set-)?cookie)"
    r"(?P<sep>[ \t]{0,8}[:=][ \t]{0,8})"
    # A quoted value (JSON, YAML) is left to _ASSIGN, which keeps the quotes.
    r"(?P<value>(?!<redacted)[^\s\"'][^\n]*)"
)


def placeholder(label: str) -> str:
    return f"<redacted:{label}>"


def _assign_sub(match: re.Match[str]) -> str:
    name = match.group("name")
    groups = match.groupdict()
    for kind in ("dq", "sq", "bare"):
        value = groups.get(kind)
        if value is not None:
            break
    if not is_secret_name(name) or _harmless(value, name):
        return match.group(0)
    label = name.rsplit(".", 1)[-1].lstrip("+-")
    shown = placeholder(label)
    if value.startswith("lit:"):
        shown = "lit:" + shown
    start, end = match.span(kind)
    if kind == "bare" and value.endswith(","):  # the comma after a JSON value stays
        end -= 1
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + shown + whole[end - offset :]


def redact_text(text: str) -> str:
    """`text` with every secret value replaced; lines and everything else unchanged."""
    if not text:
        return text
    for label, literal, pattern in SHAPE_PATTERNS:
        if literal in text:
            text = pattern.sub(placeholder(label), text)
    upper = text.upper()
    if not any(word in upper for word in _KEYWORDS):
        return text
    text = _HEADER.sub(
        lambda m: m.group("name") + m.group("sep") + placeholder(m.group("name")), text
    )
    text = _ASSIGN.sub(_assign_sub, text)
    return _FLAG.sub(_assign_sub, text)


def redact_data(value: Any, name: str | None = None) -> Any:
    """A JSON-like document with secret values replaced, keys and shape kept."""
    if isinstance(value, dict):
        return {k: redact_data(v, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, name) for v in value]
    if isinstance(value, str):
        if name and is_secret_name(name) and not _harmless(value, name):
            return placeholder(name)
        return redact_text(value)
    # A number under a secret name that is no count (PASSWORD: 12345678): a quoted
    # placeholder here, so the line filter never has to touch a bare JSON value.
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and name and is_secret_name(name) and not _harmless(str(value), name):
        return placeholder(name)
    return value
