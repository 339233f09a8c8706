"""Fixer registry: each module in evalkit.preflight.fixes repairs one rule's findings.

A fixer module has a docstring (what it changes, when it refuses) and one function
decorated with `@fixer("NELxxx")`. The function gets the text being edited (an
evalkit.config.textedit.Doc), one rule hit and the rule context, edits the Doc in place
and returns True, or returns False and leaves the Doc alone when the fix is not certain.
The engine (engine.py) re-checks the text after every fix, so a fixer handles one hit.

As in ruff, a fix that chooses behaviour the file does not state (a harness for a bare
task name, from the launcher era the config was written for) is unsafe:
`@fixer("NELxxx", unsafe=True)` registers it apart, it runs only under --unsafe-fixes,
after the rule's safe fixer, and it returns its choice and reason as a string (printed
with the fix) instead of True.
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
    apply: Callable[[Any, Any, Any], bool | str]
    unsafe: bool = False

    @property
    def summary(self) -> str:
        head = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(line.strip() for line in head.splitlines())


_FIXERS: dict[str, Fixer] = {}
_UNSAFE: dict[str, Fixer] = {}


def fixer(code: str, unsafe: bool = False):
    """Register the decorated function as the (safe or unsafe) fixer of rule `code`."""

    def decorate(func):
        doc = (sys.modules[func.__module__].__doc__ or "").strip()
        table = _UNSAFE if unsafe else _FIXERS
        if code in table and table[code].apply is not func:
            raise ValueError(f"duplicate fixer for {code}")
        table[code] = Fixer(code, doc, func, unsafe)
        return func

    return decorate


def _import_all() -> None:
    package = sys.modules[__name__]
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("nel"):
            importlib.import_module(f"{__name__}.{info.name}")


def all_fixers() -> dict[str, Fixer]:
    """Every safe fixer, by rule code (imports the fixer modules once)."""
    _import_all()
    return dict(sorted(_FIXERS.items()))


def unsafe_fixers() -> dict[str, Fixer]:
    """Every unsafe fixer (--unsafe-fixes), by rule code."""
    _import_all()
    return dict(sorted(_UNSAFE.items()))
