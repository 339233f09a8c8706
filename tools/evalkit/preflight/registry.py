"""Rule registry: each module in evalkit.preflight.rules defines one rule.

A rule module has a docstring (summary line, then the sections What it does / Why is
this bad / Example / Use instead) and one function decorated with `@rule(...)` that
yields `Hit`s. The docstring is the rule's documentation: references/rules.md is
generated from it (`python -m evalkit.preflight.docs`).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# Which input a rule needs; the runner calls it only when that input is present.
# "context": runs with --checkpoint or with --context alone (the model card's figure).
SCOPES = ("config", "checkpoint", "context", "pair", "launcher", "other-schema")


@dataclass(frozen=True)
class Hit:
    """One problem a rule found, before it becomes a Finding with file and line."""

    path: tuple = ()
    message: str = ""
    fix: str | None = None
    severity: str | None = None  # None: the rule's own severity
    line: int | None = None  # None: the line of `path`
    token: str | None = None  # text to locate inside the value for a finer line


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    scope: str
    doc: str
    check: Callable[[Any], Iterable[Hit]]

    @property
    def summary(self) -> str:
        """The docstring's first paragraph, on one line."""
        head = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(line.strip() for line in head.splitlines())


_RULES: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str, scope: str = "config"):
    """Register the decorated check function under a stable code."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    def decorate(func: Callable[[Any], Iterable[Hit]]):
        module = sys.modules[func.__module__]
        doc = (module.__doc__ or "").strip()
        if code in _RULES and _RULES[code].check is not func:
            raise ValueError(f"duplicate rule code {code}")
        _RULES[code] = Rule(code, name, severity, scope, doc, func)
        return func

    return decorate


def all_rules() -> dict[str, Rule]:
    """Every rule, by code (imports the rules package once)."""
    from evalkit.preflight import rules as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(sorted(_RULES.items()))
