"""Reading user files safely: every failure becomes an InputError naming the file and line.

Nothing here writes; callers get text or parsed data, never a half-read object.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from evalkit.errors import InputError

# Limits on what one read may cost (README, "Limits"). Real inputs sit far below them.
MAX_FILE_BYTES = 64 * 1024 * 1024  # a file read whole (configs, results, JSON, run.sub)
MAX_LINE_BYTES = 1024 * 1024  # one log line kept; the rest of a longer line is skipped

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(mode: int) -> str | None:
    """'a named pipe (FIFO)', 'a character device', ... for a file that is not regular."""
    return next((name for test, name in _KINDS if test(mode)), None)


def _os_error(err: OSError, p: Path, what: str) -> InputError:
    if isinstance(err, FileNotFoundError):
        return InputError("no such file", p)
    if isinstance(err, IsADirectoryError):
        return InputError(f"is a directory, expected {what}", p)
    if isinstance(err, PermissionError):
        return InputError("permission denied", p)
    if err.errno == errno.ELOOP:
        return InputError("symbolic link loop", p)
    if err.errno == errno.ENXIO:
        return InputError("is a socket or a device with nothing behind it; not read", p)
    return InputError(f"cannot read ({err.strerror or err})", p)


def open_binary(path: str | Path, what: str = "a file") -> BinaryIO:
    """Open a regular file for streaming; every OS failure becomes an InputError naming the file.

    Opened non-blocking and checked with fstat before any read, so a FIFO, device or socket
    (itself or behind a symlink, e.g. to /dev/zero) is refused instead of hanging or
    streaming forever."""
    p = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except OSError as err:
        raise _os_error(err, p, what) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"is a directory, expected {what}", p)
        kind = special_kind(mode)
        if kind is not None or not stat.S_ISREG(mode):
            raise InputError(f"is {kind or 'not a regular file'}, expected {what}; not read", p)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The whole file, refused (not truncated) when it is larger than `limit` bytes."""
    with open_binary(path) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as err:
            raise _os_error(err, Path(path), "a file") from None
    if len(data) > limit:
        raise InputError(f"larger than {limit} bytes; not read", path)
    return data


def iter_capped_lines(handle: BinaryIO, cap: int = MAX_LINE_BYTES) -> Iterator[tuple[bytes, int]]:
    """(line, its full length in bytes) for each line of a binary stream, in bounded memory.

    A line longer than `cap` is cut to its first `cap` bytes plus its newline (if it has
    one); the rest is read in chunks and dropped. A last line without a newline is
    handed out without one, so a caller can tell a write in progress."""
    while True:
        raw = handle.readline(cap)
        if not raw:
            return
        full = len(raw)
        if len(raw) == cap and not raw.endswith(b"\n"):
            while True:
                more = handle.readline(cap)
                full += len(more)
                if not more or more.endswith(b"\n"):
                    if more.endswith(b"\n"):
                        raw += b"\n"
                    break
        yield raw, full


def iter_log_lines(path: str | Path) -> Iterator[str]:
    """A log's lines as text, streamed with the per-line cap. Logs are diagnostics, not
    inputs with a format: undecodable bytes are replaced, never fatal."""
    with open_binary(path, "a log file") as handle:
        try:
            for raw, _ in iter_capped_lines(handle):
                yield raw.decode("utf-8", errors="replace")
        except OSError as err:
            raise _os_error(err, Path(path), "a log file") from None


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
    except RecursionError:
        raise InputError("JSON nesting too deep", path) from None


def load_json(path: str | Path) -> Any:
    return parse_json(read_text(path), path)


def yaml_error(err: yaml.YAMLError, path: str | Path) -> InputError:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    line = mark.line + 1 if mark is not None else None
    return InputError(f"malformed YAML: {problem}", path, line)


def parse_yaml(text: str, path: str | Path) -> Any:
    """Safe-load YAML within the alias, depth and size bounds of evalkit.boundedyaml."""
    from evalkit.boundedyaml import load_bounded

    return load_bounded(text, path)


def load_yaml(path: str | Path) -> Any:
    return parse_yaml(read_text(path), path)


def expect_mapping(value: Any, path: str | Path, what: str = "the top level") -> dict:
    if not isinstance(value, dict):
        kind = "empty" if value is None else type(value).__name__
        raise InputError(
            f"{what} must be a mapping, found {kind}", path, 1 if value is None else None
        )
    return value
