"""Fixer registry: each module in evalkit.preflight.fixes repairs one rule's findings.

A fixer module has a docstring (what it changes, when it refuses) and one function
decorated with `@fixer("NELxxx")`. The function gets the text being edited (an
evalkit.config.textedit.Doc), one rule hit and the rule context, edits the Doc in place
and returns True, or returns False and leaves the Doc alone when the fix is not certain.
The engine (engine.py) re-checks the text after every fix, so a fixer handles one hit.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fixer:
    code: str
    doc: str
    apply: Callable[[Any, Any, Any], bool]

    @property
    def summary(self) -> str:
        head = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(line.strip() for line in head.splitlines())


_FIXERS: dict[str, Fixer] = {}


def fixer(code: str):
    """Register the decorated function as the fixer of rule `code`."""

    def decorate(func):
        doc = (sys.modules[func.__module__].__doc__ or "").strip()
        if code in _FIXERS and _FIXERS[code].apply is not func:
            raise ValueError(f"duplicate fixer for {code}")
        _FIXERS[code] = Fixer(code, doc, func)
        return func

    return decorate


def all_fixers() -> dict[str, Fixer]:
    """Every fixer, by rule code (imports the fixer modules once)."""
    package = sys.modules[__name__]
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("nel"):
            importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(_FIXERS.items()))
