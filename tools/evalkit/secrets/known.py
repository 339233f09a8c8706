"""Exact secret values, known by where they came from, replaced wherever they appear.

A value is known to be secret when its source says so: a secret-named variable of the
environment or of a dotenv file (`remember_env`), or a config value (an `-o` override
included) under a secret name, in a credential shape, or assigned to a secret name inside
a command string (`remember_config`). Nothing else is rewritten: a path that merely looks
like `key=value` is data. `cli.main` starts each command with an empty registry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from evalkit.secrets.names import is_harmless_value, is_secret_name

# Shorter values are left alone: replacing `v2` everywhere would corrupt more than it hides.
MIN_LENGTH = 6


def placeholder(label: str) -> str:
    return f"<redacted:{label}>"


class KnownSecrets:
    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def add(self, value: str, label: str) -> None:
        value = value.strip()
        if value.startswith("lit:"):
            value = value[4:].strip()
        if len(value) < MIN_LENGTH or is_harmless_value(value) or value in self._labels:
            return
        self._labels[value] = label.rsplit(".", 1)[-1].lstrip("+-") or "secret"
        self._pattern = None

    def clear(self) -> None:
        self._labels.clear()
        self._pattern = None

    def __contains__(self, value: object) -> bool:
        return value in self._labels

    def label(self, value: str) -> str:
        return self._labels.get(value, "secret")

    def __bool__(self) -> bool:
        return bool(self._labels)

    def found_in(self, text: str) -> bool:
        """True when printing `text` would redact part of it (a `--diff` that would no
        longer apply as printed)."""
        return self.replace(text) != text

    def replace(self, text: str) -> str:
        """`text` with each known value replaced by `<redacted:ITS NAME>`."""
        if not self._labels or not text:
            return text
        if self._pattern is None:  # longest first: a value that holds another wins
            ordered = sorted(self._labels, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(v) for v in ordered))
        return self._pattern.sub(lambda m: placeholder(self._labels[m.group(0)]), text)


KNOWN = KnownSecrets()


def remember_env(env: Mapping[str, str]) -> None:
    """The values of the secret-named variables of an environment or dotenv file."""
    for name, value in env.items():
        if isinstance(value, str) and is_secret_name(name) and not is_harmless_value(value, name):
            KNOWN.add(value, name)
