"""The bounded-readers table (docs/tool-reference.md, linked from the README): tests read
a limit from it, so a changed bound and its documented figure cannot drift apart."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "tool-reference.md"


def limits_row(start: str) -> str:
    """The limit column of the one row whose first cell starts with START."""
    (row,) = [
        line
        for line in DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith(f"| {start}")
    ]
    return row.split(" | ")[1]
