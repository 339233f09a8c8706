"""Reading user files safely: every failure becomes an InputError naming the file and line.

Nothing here writes; callers get text or parsed data, never a half-read object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from evalkit.errors import InputError


def open_binary(path: str | Path, what: str = "a file") -> BinaryIO:
    """Open for streaming; every OS failure becomes an InputError naming the file."""
    p = Path(path)
    try:
        return p.open("rb")
    except FileNotFoundError:
        raise InputError("no such file", p) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, expected {what}", p) from None
    except PermissionError:
        raise InputError("permission denied", p) from None
    except OSError as err:
        raise InputError(f"cannot read ({err.strerror or err})", p) from None


def read_bytes(path: str | Path) -> bytes:
    with open_binary(path) as handle:
        try:
            return handle.read()
        except OSError as err:
            raise InputError(f"cannot read ({err.strerror or err})", path) from None


def decode_text(data: bytes, path: str | Path) -> str:
    """Decode UTF-8 strictly; binary or mis-encoded input is named with its line."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError("binary data (NUL byte), expected text", path, line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte 0x{data[err.start]:02x})", path, line) from None
    return text.removeprefix("\ufeff")


def read_text(path: str | Path) -> str:
    return decode_text(read_bytes(path), path)


def parse_json(text: str, path: str | Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"malformed JSON: {err.msg}", path, err.lineno) from None


def load_json(path: str | Path) -> Any:
    return parse_json(read_text(path), path)


def yaml_error(err: yaml.YAMLError, path: str | Path) -> InputError:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    line = mark.line + 1 if mark is not None else None
    return InputError(f"malformed YAML: {problem}", path, line)


def parse_yaml(text: str, path: str | Path) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None


def load_yaml(path: str | Path) -> Any:
    return parse_yaml(read_text(path), path)


def expect_mapping(value: Any, path: str | Path, what: str = "the top level") -> dict:
    if not isinstance(value, dict):
        kind = "empty" if value is None else type(value).__name__
        raise InputError(
            f"{what} must be a mapping, found {kind}", path, 1 if value is None else None
        )
    return value
