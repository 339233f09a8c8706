"""The check-skill rules, one module per rule (`skNNN_name.py`); see evalkit.skillcheck.registry.

Importing this package imports every rule module once; `RULES` lists them in code order.
Severities follow the preflight contract: an error is what breaks the skill for an agent
(invalid frontmatter, a path found nowhere, a code block that cannot parse as written);
style and house conventions are warnings; notes are info. House conventions read
`tree.settings`.
"""

from __future__ import annotations

import importlib
import pkgutil

from evalkit.skillcheck.registry import Rule, registered

for _info in pkgutil.iter_modules(__path__):
    if _info.name.startswith("sk"):
        importlib.import_module(f"{__name__}.{_info.name}")

RULES: list[Rule] = registered()

__all__ = ["RULES", "Rule"]
