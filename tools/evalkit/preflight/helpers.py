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
