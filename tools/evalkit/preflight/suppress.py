"""Which findings the user asked not to see: inline `# evalkit: disable=...` comments,
`--select` and `--ignore`. Suppressed findings are kept aside and counted, never lost.

    key: value  # evalkit: disable=NEL201        this line only
    # evalkit: disable=NEL004,NEL201             on its own line before any key: whole file

Codes may be prefixes (`NEL2` covers NEL201..NEL207), as in ruff's selectors.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evalkit.findings import Finding

DIRECTIVE = re.compile(r"#\s*evalkit:\s*disable=(\w+(?:\s*,\s*\w+)*)")
CODE = re.compile(r"NEL\d{0,3}")


@dataclass
class Directives:
    whole_file: set[str] = field(default_factory=set)
    by_line: dict[int, set[str]] = field(default_factory=dict)


def _codes(text: str) -> set[str]:
    return {c.strip().upper() for c in text.split(",") if c.strip()}


def parse_directives(text: str) -> Directives:
    """Read the disable comments of one YAML file (its raw text, line by line)."""
    out = Directives()
    header = True  # still in the leading comments, before the first key
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        m = DIRECTIVE.search(line)
        if stripped and not stripped.startswith("#") and stripped != "---":
            header = False
        if not m:
            continue
        codes = _codes(m.group(1))
        if stripped.startswith("#"):
            if header:
                out.whole_file |= codes
            else:  # an own-line directive further down covers the line below it
                out.by_line.setdefault(number + 1, set()).update(codes)
        else:
            out.by_line.setdefault(number, set()).update(codes)
    return out


def matches(code: str, selectors: Iterable[str]) -> bool:
    return any(code == s or code.startswith(s) for s in selectors)


def check_selectors(selectors: Sequence[str], known: Iterable[str]) -> list[str]:
    """Selectors that name no rule (for a usage error); `NEL` alone selects all."""
    known = list(known)
    return [
        s for s in selectors if not CODE.fullmatch(s) or not any(k.startswith(s) for k in known)
    ]


@dataclass
class Filtered:
    shown: list[Finding]
    suppressed: list[Finding]

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(f.rule for f in self.suppressed).items()))


def apply(
    findings: Iterable[Finding],
    directives: dict[str, Directives],
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> Filtered:
    """Split findings into those shown and those suppressed (by comment or option)."""
    shown: list[Finding] = []
    hidden: list[Finding] = []
    for f in findings:
        d = directives.get(f.file or "")
        off = (select and not matches(f.rule, select)) or matches(f.rule, ignore)
        if d is not None and not off:
            off = matches(f.rule, d.whole_file) or (
                f.line is not None and matches(f.rule, d.by_line.get(f.line, ()))
            )
        (hidden if off else shown).append(f)
    return Filtered(shown, hidden)
