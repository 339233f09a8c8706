"""Secrets leave evalkit in no output: redaction by where a value came from.

- Text quoted from logs, rollouts and rendered scripts was searched for secret names and
  credential shapes when it was quoted (evalkit.secrets.quote), before any cut.
- Exact values known to be secret (evalkit.secrets.known: the environment, a dotenv file,
  a config's secret values and `-o` overrides) are replaced wherever they appear.
- A structured document (JSON, SARIF, the HTML report) is redacted as data by
  `redact_data` before it is serialised, never rewritten as text afterwards.
- Files the user asked for (`init -o`, `preflight --fix`) are written exactly as given; a
  secret in them is a finding (NEL103), not a silent edit.
"""

from __future__ import annotations

from typing import Any

from evalkit.secrets import is_harmless_value, is_secret_name
from evalkit.secrets.known import KNOWN, placeholder

__all__ = ["is_secret_name", "placeholder", "redact_data", "redact_text"]


def redact_text(text: str) -> str:
    """Plain text with every known secret value replaced; nothing else touched."""
    return KNOWN.replace(text)


def redact_data(value: Any, name: str | None = None) -> Any:
    """A JSON-like document with secret values replaced, keys and shape kept."""
    if isinstance(value, dict):
        return {k: redact_data(v, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, name) for v in value]
    secret_name = bool(name) and is_secret_name(name)
    if isinstance(value, str):
        if secret_name and not is_harmless_value(value, name):
            return placeholder(name)
        return KNOWN.replace(value)
    # A number under a secret name that is no count (PASSWORD: 12345678), or equal to a
    # known secret: a quoted placeholder, so the document stays valid JSON.
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    if (secret_name and not is_harmless_value(str(value), name)) or str(value) in KNOWN:
        return placeholder(name or KNOWN.label(str(value)))
    return value
