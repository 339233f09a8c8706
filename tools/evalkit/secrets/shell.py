"""Where bash reads a comment in a command string, so a comment is never judged as code.

bash starts a comment at a `#` that begins a word (at the start of the text, or after a
blank or one of the metacharacters `;&|()<>`) outside quotes, and ends it at the newline
(bash(1), "COMMENTS" and "QUOTING"). `'...'`, `"..."`, `$'...'`, a backslash, `$(...)`
and backquotes are followed, so `'a # b'`, `"#x"`, `${#arr}`, `$#` and `a#b` are no
comments. A here-document's body (from the line after `<<WORD` to the line `WORD`) is
read as a script of its own: the bodies in our configs are scripts run by `bash -s` or
written to a file and run. One pass, linear in the text's length.
"""

from __future__ import annotations

import re

_BOUNDARY = frozenset(" \t\n;&|()<>")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\?([A-Za-z_][\w-]*))")


_MAX_DEPTH = 8  # here-documents inside here-documents deeper than this are data


# The characters each context acts on; the pass jumps over everything else.
_NEXT = {
    "": re.compile(r"[\\#'\"$()`<\n]"),  # shell words (top level, $(...), `...`)
    "(": re.compile(r"[\\#'\"$()`<\n]"),
    "`": re.compile(r"[\\#'\"$()`<\n]"),
    "'": re.compile(r"'"),
    '"': re.compile(r"[\\\"$`]"),
    "$'": re.compile(r"[\\']"),
}


def comment_spans(text: str, depth: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each comment in `text`, the `#` included, the newline not."""
    if "#" not in text:
        return []  # every comment starts at a `#`
    spans: list[tuple[int, int]] = []
    stack: list[str] = []  # open contexts: "'", '"', "$'", "(" (a $(...) ) and "`"
    heredocs: list[tuple[str, bool]] = []  # (word, tabs stripped) waiting for a newline
    escaped = -1  # the last character a backslash escaped: a blank so escaped ends no word
    i, n = 0, len(text)
    while i < n:
        top = stack[-1] if stack else ""
        jump = _NEXT[top].search(text, i)
        if jump is None:
            break
        i = jump.start()
        c = text[i]
        if top == "'":
            if c == "'":
                stack.pop()
        elif top in ("$'", '"'):
            if c == "\\":
                i += 1
            elif c == top[-1]:  # the closing quote of "..." or $'...'
                stack.pop()
            elif top == '"' and text.startswith("$(", i):
                stack.append("(")
                i += 1
            elif top == '"' and c == "`":
                stack.append("`")
        else:  # shell words: the top level, inside $(...) or `...`
            if c == "\\":
                i += 1
                escaped = i
            elif c == "#" and (i == 0 or (text[i - 1] in _BOUNDARY and escaped != i - 1)):
                end = text.find("\n", i)
                end = n if end < 0 else end
                spans.append((i, end))
                i = end
                continue
            elif c == "'":
                stack.append("'")
            elif c == '"':
                stack.append('"')
            elif text.startswith("$'", i):
                stack.append("$'")
                i += 1
            elif text.startswith("$(", i):
                stack.append("(")
                i += 1
            elif c == "(" and top == "(":
                stack.append("(")
            elif c == ")" and top == "(":
                stack.pop()
            elif c == "`":
                if top == "`":
                    stack.pop()
                else:
                    stack.append("`")
            elif text.startswith("<<", i) and not text.startswith("<<<", i):
                match = _HEREDOC.match(text, i)
                if match:
                    word = match.group(2) or match.group(3) or match.group(4)
                    heredocs.append((word, bool(match.group(1))))
                    i = match.end()
                    continue
            elif c == "\n" and heredocs and not stack:
                i = _bodies(text, i + 1, heredocs, spans, depth + 1)
                heredocs = []
                continue
        i += 1
    return spans


def _bodies(text: str, at: int, heredocs: list[tuple[str, bool]], spans: list, depth: int) -> int:
    """Read each waiting here-document body from `at`; its comments go into `spans`.
    Returns where the shell words go on."""
    for word, strip_tabs in heredocs:
        start = pos = at
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            line = text[pos:end]
            if (line.lstrip("\t") if strip_tabs else line) == word:
                spans.extend(_nested(text[start:pos], start, depth))
                at = min(end + 1, len(text))
                break
            pos = end + 1
        else:  # unterminated: bash reads the body to the end of the text
            spans.extend(_nested(text[start:], start, depth))
            return len(text)
    return at


def _nested(body: str, offset: int, depth: int) -> list[tuple[int, int]]:
    if depth > _MAX_DEPTH:
        return []
    return [(offset + a, offset + b) for a, b in comment_spans(body, depth)]


def without_comments(text: str) -> str:
    """`text` with each comment blanked (same length, newlines kept), so what is left
    is what bash runs, at the same offsets."""
    spans = comment_spans(text)
    if not spans:
        return text
    parts, at = [], 0
    for start, end in spans:
        parts += [text[at:start], " " * (end - start)]
        at = end
    parts.append(text[at:])
    return "".join(parts)
