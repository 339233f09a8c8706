"""Small parsing helpers shared by several rules."""

from __future__ import annotations

import re

WALLTIME = re.compile(r"(?:(\d+)-)?(\d+):(\d+):(\d+)")


def walltime_seconds(value: object) -> int | None:
    """Seconds of a launcher walltime ("HH:MM:SS" or "D-HH:MM:SS"); None if not one."""
    if not isinstance(value, str):
        return None
    m = WALLTIME.fullmatch(value.strip())
    if not m:
        return None
    days = int(m.group(1) or 0)
    return days * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))


def hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def image_tag(image: str) -> str | None:
    """The tag of a registry image ('' when it has none); None for local files/paths."""
    if image.startswith(("/", ".")) or image.endswith(".sqsh") or "???" in image:
        return None
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else ""


# Keys whose string value bash runs (the serving command, hooks, the gym bootstrap).
COMMAND_KEYS = frozenset({"command", "base_command", "pre_cmd", "post_cmd"})


def command_strings(ctx, user_only: bool = True):
    """(path, text) of every value bash will run; prose and names are never scanned."""
    source = ctx.user_strings() if user_only else ctx.strings()
    for path, value in source:
        if path and path[-1] in COMMAND_KEYS:
            yield path, value


def strip_shell_comments(text: str) -> str:
    """The text bash executes: each `#` that starts a word outside quotes ends its line.

    Offsets of the kept code are unchanged (comments become spaces), so a token found in
    the result can be located in the original value.
    """
    out: list[str] = []
    quote: str | None = None
    in_comment = False
    prev = "\n"
    for ch in text:
        if ch == "\n":
            in_comment = False
        elif in_comment:
            out.append(" ")
            prev = ch
            continue
        elif quote:
            if ch == quote and prev != "\\":
                quote = None
        elif ch in "'\"" and prev != "\\":
            quote = ch
        elif ch == "#" and (prev.isspace() or prev in ";|&("):
            in_comment = True
            out.append(" ")
            prev = ch
            continue
        out.append(ch)
        prev = ch
    return "".join(out)
