"""What counts as a secret: by its name, by its shape, and which values under a secret name
are harmless.

One definition for every reader: preflight's rules (NEL101, NEL103 and the NEL101 fixer),
the log quoting of the run model and the redaction of every output. It imports nothing of
evalkit above the base, so either side can use it without reaching up into the other.

Where a secret can come from decides how it is found (docs/ARCHITECTURE.md, "Secrets"):
- `known`: exact values whose source says they are secret (the environment, a dotenv
  file, a config value under a secret name or in a credential shape, an `-o` override);
  they are replaced wherever they appear in what evalkit prints;
- `quote`: text quoted from logs, rollouts and rendered scripts, searched for secret
  names and credential shapes (`shapes`) on the whole line before it is cut.
"""

from __future__ import annotations

from evalkit.secrets.names import (
    HARMLESS,
    SECRET_TAILS,
    SECRET_WORDS,
    is_harmless_value,
    is_secret_name,
)
from evalkit.secrets.shapes import SHAPE_PATTERNS, SHAPES, looks_secret

__all__ = [
    "HARMLESS",
    "SECRET_TAILS",
    "SECRET_WORDS",
    "SHAPES",
    "SHAPE_PATTERNS",
    "is_harmless_value",
    "is_secret_name",
    "looks_secret",
]
