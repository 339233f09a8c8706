"""Rule registry for check-skill: each module in evalkit.skillcheck.rules defines one rule.

A rule module's docstring is the rule's documentation (summary line, then the sections
What it does / Why is this bad / Example / Use instead); docs/skill-rules.md is generated
from it (`python -m evalkit.skillcheck.docs`). Its one `@rule(...)` function takes the
loaded SkillTree and yields Findings. Codes are stable: a retired rule keeps its code
unused. This module knows nothing of the rules package; `evalkit.skillcheck.rules`
imports every rule module and lists them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from evalkit.findings import SEVERITIES, Finding
from evalkit.skillcheck.config import Settings
from evalkit.skillcheck.model import SkillTree


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    check: Callable[[SkillTree], Iterator[Finding]]
    # The severities it reports by default, e.g. "error|warning".
    levels: str = "error"
    # The settings this rule reads (table keys), shown by `check-skill --rules`.
    settings: tuple[str, ...] = ()
    # Whether the rule runs under the given settings (house conventions start off).
    switch: Callable[[Settings], bool] | None = None
    doc: str = ""

    def enabled(self, settings: Settings) -> bool:
        if self.id in settings.disable:
            return False
        return self.switch(settings) if self.switch else True

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else self.name


_RULES: dict[str, Rule] = {}


def rule(code: str, name: str, levels: str, settings: tuple[str, ...] = (), switch=None):
    """Register the decorated check under `code`; its module docstring is the rule's doc."""
    if not set(levels.split("|")) <= set(SEVERITIES):
        raise ValueError(f"{code}: unknown severity in {levels!r}")

    def register(func: Callable[[SkillTree], Iterator[Finding]]):
        doc = (sys.modules[func.__module__].__doc__ or "").strip()
        if code in _RULES and _RULES[code].check is not func:
            raise ValueError(f"duplicate rule code {code}")
        _RULES[code] = Rule(code, name, func, levels, settings, switch, doc)
        return func

    return register


def registered() -> list[Rule]:
    """The rules registered so far, in code order."""
    return [_RULES[code] for code in sorted(_RULES)]
