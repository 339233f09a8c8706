"""One value from a run or a config as one shell word of a printed command.

Lives in the base so that every layer that prints a command (the failure signatures'
next steps, init's launch line, the renderers' endings) quotes alike; render.inert
re-exports it beside its text, Markdown and HTML forms.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from evalkit.secrets.known import KNOWN

# What can break a line, move the cursor, recolour a terminal or reorder the text shown.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\u061c\u200e\u200f]")
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shell_word(value: Any) -> str:
    """VALUE as one shell word: secrets redacted first, then quoted, so a placeholder such as
    `<redacted:url-password>` is inside the quotes; a control character makes it bash's
    `$'...'` form, which names the same bytes on one line."""
    text = KNOWN.replace(str(value))
    if UNSAFE.search(text) is None:
        return shlex.quote(text)
    body = text.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + UNSAFE.sub(lambda m: _escape(m.group(0)), body) + "'"


def _escape(char: str) -> str:
    # bash reads `\xHH` as a byte and `\uHHHH` as a character (in the locale's encoding)
    code = ord(char)
    return NAMED.get(char) or (f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}")
