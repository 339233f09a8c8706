"""Reading user files safely: every failure becomes an InputError naming the file and line.

The one module that owns bounded reading: bytes, text, log lines, JSON and YAML. Nothing
here writes; callers get text or parsed data, never a half-read object.

YAML is size-checked, its nesting measured on the event stream (libyaml's parser keeps its
own stack; its composer recurses in C, so a deeply nested document could crash the
interpreter), and the composed graph counted as if every alias were expanded (PyYAML
shares aliased nodes, so a 1 KB alias bomb loads into a small graph that explodes when
walked), before one value is constructed. Preflight's config reader
(evalkit.config.yamldoc) reads with the launcher's own loader instead; the numbers are in
the README's "Limits" table.
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
MAX_RECORD_BYTES = 256 * 1024 * 1024  # one JSONL record; 1M-variant MRCR lines reach ~5.5 MB
MAX_YAML_CHARS = 8 * 1024 * 1024  # a run_config.yml is a few kB; results.yml, tens of kB
MAX_YAML_DEPTH = 100  # collections inside collections; real files nest fewer than 15
MAX_YAML_NODES = 200_000  # values after alias expansion ("billion laughs" makes 10**9)

_CLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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


def iter_records(handle: BinaryIO, path: str | Path, first_line: int = 1) -> Iterator[bytes]:
    """Each line of a JSONL stream whole (records are never cut), refusing one longer than
    MAX_RECORD_BYTES instead of reading it into memory."""
    line = first_line
    while raw := handle.readline(MAX_RECORD_BYTES + 1):
        if len(raw) > MAX_RECORD_BYTES:
            raise InputError(f"a line longer than {MAX_RECORD_BYTES} bytes; not read", path, line)
        yield raw
        line += 1


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


def yaml_error(err: yaml.YAMLError, path: str | Path, text: str | None = None) -> InputError:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    line = mark.line + 1 if mark is not None else None
    position = getattr(err, "position", None)  # a ReaderError: a character YAML forbids
    if line is None and text is not None and isinstance(position, int):
        line = text.count("\n", 0, position) + 1
    return InputError(f"malformed YAML: {problem}", path, line)


def _check_depth(text: str, path: str | Path) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=_CLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else None
                raise InputError(
                    f"YAML nested deeper than {MAX_YAML_DEPTH} levels; not read", path, line
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _check_expansion(root: yaml.Node, path: str | Path) -> None:
    """Count nodes as a consumer walking the loaded data would meet them (aliases and
    merge keys expanded); iterative, and it stops at the bound, so it is cheap either way."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise InputError(
                f"YAML expands to more than {MAX_YAML_NODES} values (an alias bomb?); not read",
                path,
                node.start_mark.line + 1 if node.start_mark else None,
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)


def compose_bounded(text: str, path: str | Path) -> yaml.Node | None:
    """The node graph of one YAML document (scalars keep their own text), within the
    bounds; for readers that need a value's spelling, not YAML's guess at its type."""
    if len(text) > MAX_YAML_CHARS:
        raise InputError(f"YAML larger than {MAX_YAML_CHARS} characters; not read", path)
    try:
        _check_depth(text, path)
        root = yaml.compose(text, Loader=_CLoader)
        if root is not None:
            _check_expansion(root, path)
        return root
    except yaml.YAMLError as err:
        raise yaml_error(err, path, text) from None
    except RecursionError:
        raise InputError("YAML nested too deeply; not read", path) from None


def parse_yaml(text: str, path: str | Path) -> Any:
    """Safe-load one YAML document within the size, depth and alias bounds."""
    root = compose_bounded(text, path)
    if root is None:
        return None
    try:
        return yaml.constructor.SafeConstructor().construct_document(root)
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None
    except RecursionError:
        raise InputError("YAML nested too deeply; not read", path) from None
    except (ValueError, TypeError, OverflowError) as err:  # a value the constructor rejects
        raise InputError(f"bad YAML value: {err}", path) from None


def load_yaml(path: str | Path) -> Any:
    return parse_yaml(read_text(path), path)


def expect_mapping(value: Any, path: str | Path, what: str = "the top level") -> dict:
    if not isinstance(value, dict):
        kind = "empty" if value is None else type(value).__name__
        raise InputError(
            f"{what} must be a mapping, found {kind}", path, 1 if value is None else None
        )
    return value
