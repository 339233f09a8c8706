"""Errors that end a command with exit code 2 and one line on stderr."""

from __future__ import annotations

from pathlib import Path


class EvalkitError(Exception):
    """Base class: the CLI prints `str(err)` as one line and exits 2."""


class InputError(EvalkitError):
    """An input that cannot be read or parsed: names the file and, where known, the line."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(self.location_message())

    def location_message(self) -> str:
        if self.path is None:
            return self.message
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


class UsageError(EvalkitError):
    """Arguments that make no sense together (argparse cannot express the rule)."""
