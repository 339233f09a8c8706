"""A generated section of a reference page: the text between two HTML-comment markers,
rewritten from the code that defines it (rules, checks, fingerprint fields, failure
signatures), so the page cannot drift from the code. `python -m <generator> --write`
rewrites the page; without it the section is printed; a test compares the two."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evalkit.inputs import read_text


@dataclass(frozen=True)
class GeneratedSection:
    begin: str
    end: str
    target: Path
    render: Callable[[], str]

    def splice(self, text: str, section: str) -> str:
        """TEXT with everything between the markers replaced by SECTION."""
        head, sep, rest = text.partition(self.begin)
        _old, sep2, tail = rest.partition(self.end)
        if not sep or not sep2:
            raise ValueError(
                f"{self.target}: the markers {self.begin!r} and {self.end!r} are missing"
            )
        return f"{head}{self.begin}\n{section}{self.end}{tail}"

    def main(self, argv: Sequence[str]) -> int:
        if list(argv[:1]) == ["--write"]:
            path = Path(argv[1]) if len(argv) > 1 else self.target
            path.write_text(self.splice(read_text(path), self.render()), encoding="utf-8")
            return 0
        sys.stdout.write(self.render())
        return 0
