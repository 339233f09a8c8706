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
import sqlite3
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from evalkit.errors import InputError

# Limits on what one read may cost (README, "Limits"). Real inputs sit far below them.
MAX_FILE_BYTES = 64 * 1024 * 1024  # a file read whole (configs, results, JSON, run.sub)
MAX_LINE_BYTES = 1024 * 1024  # one log line kept; the rest of a longer line is skipped
MAX_RECORD_BYTES = 256 * 1024 * 1024  # one JSONL record; 1M-variant MRCR lines reach ~5.5 MB
_CHUNK = 1024 * 1024  # a long JSONL line is read in pieces of this size
MAX_YAML_CHARS = 8 * 1024 * 1024  # a run_config.yml is a few kB; results.yml, tens of kB
MAX_YAML_DEPTH = 100  # collections inside collections; real files nest fewer than 15
MAX_YAML_NODES = 200_000  # values after alias expansion ("billion laughs" makes 10**9)
MAX_DB_ROWS = 1_000_000  # rows of one SQLite table; a harness writes one per item and repeat
MAX_DB_HEAP_BYTES = 256 * 1024 * 1024  # SQLite's own memory in one read, temp storage included
MAX_DB_COPY_BYTES = 2 * 1024**3  # a database and its write-ahead log, copied to read the log
DB_STEPS_PER_BYTE = 64  # SQLite VM steps allowed per byte of the database (a scan takes ~1)

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
    while raw := handle.readline(_CHUNK):
        if len(raw) == _CHUNK and not raw.endswith(b"\n"):
            # a long line is gathered chunk by chunk, so a refused one costs the cap
            # once (one readline of the cap builds it twice over)
            whole = bytearray(raw)
            while more := handle.readline(_CHUNK):
                whole += more
                if len(whole) > MAX_RECORD_BYTES or more.endswith(b"\n"):
                    break
            raw = bytes(whole) if len(whole) <= MAX_RECORD_BYTES else whole
        if len(raw) > MAX_RECORD_BYTES:
            raise InputError(f"a line longer than {MAX_RECORD_BYTES} bytes; not read", path, line)
        yield raw
        line += 1


def skip_line(handle: BinaryIO, path: str | Path) -> int:
    """Read past the rest of the current line in 1 MiB pieces, keeping none of it; its
    length in bytes. A line longer than MAX_RECORD_BYTES is refused as iter_records does."""
    skipped = 0
    while piece := handle.readline(_CHUNK):
        skipped += len(piece)
        if skipped > MAX_RECORD_BYTES:
            raise InputError(f"a line longer than {MAX_RECORD_BYTES} bytes; not read", path)
        if piece.endswith(b"\n"):
            break
    return skipped


def iter_jsonl(path: str | Path, what: str = "a .jsonl file") -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each line of a JSONL file, with the rollouts' per-line cap
    (MAX_RECORD_BYTES): a longer line is refused before it is read into memory."""
    with open_binary(path, what) as handle:
        try:
            yield from enumerate(iter_records(handle, path), start=1)
        except OSError as err:
            raise _os_error(err, Path(path), what) from None


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


# SQLite, as the harnesses leave it (simple-evals' item store, the adapter's response cache).
# What a database holds is run data: a `Cache` that is a recursive VIEW would make SQLite
# compute forever and spill gigabytes to a temporary file, so only a real table is read,
# temporary storage stays in memory under a process-wide heap limit (SQLite lets a pragma
# lower that limit, never raise it; evalkit opens no other database), and the VM's steps
# are bounded by the file's size.
SQLITE_MAGIC = b"SQLite format 3\x00"


def confine(path: str | Path, root: str | Path) -> Path:
    """PATH resolved, refused when it (through any symbolic link) leaves ROOT."""
    real, top = Path(path).resolve(), Path(root).resolve()
    if real != top and top not in real.parents:
        raise InputError("symbolic link leaves the run directory; not followed", path)
    return real


def _sqlite_size(path: Path) -> int:
    """The file's size, after refusing what SQLite would misread: not a database, or fewer
    bytes than its header says it holds (a copy cut short). Offsets: the SQLite file
    format, section 1.3."""
    with open_binary(path, "a SQLite database") as handle:
        header = handle.read(100)
        size = os.fstat(handle.fileno()).st_size
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise InputError("not a SQLite database (no SQLite header); not read", path)
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[28:32], "big")
    if pages and size < page * pages:
        raise InputError(
            f"truncated SQLite database: its header says {page * pages} bytes, "
            f"the file holds {size}; not read",
            path,
        )
    return size


def _copy_capped(source: Path, dest: Path, budget: int) -> int:
    """Copy a regular file, refused before a byte is copied when it is over BUDGET."""
    with open_binary(source, "a SQLite file") as handle, open(dest, "wb") as out:
        if os.fstat(handle.fileno()).st_size > budget:
            raise InputError(f"larger than the {MAX_DB_COPY_BYTES} bytes copied to read it", source)
        copied = 0
        while chunk := handle.read(1 << 20):
            copied += len(chunk)
            if copied > budget:  # it grew while read
                raise InputError(
                    f"larger than the {MAX_DB_COPY_BYTES} bytes copied to read it", source
                )
            out.write(chunk)
    return copied


def iter_sqlite_rows(
    path: str | Path, root: str | Path, table: str, select: str, params: Sequence = ()
) -> Iterator[tuple]:
    """Each row of TABLE as the columns SELECT names (SQL from the caller, never from the
    file), in rowid order, at most MAX_DB_ROWS. The database, its `-wal` and `-shm` must
    stay inside ROOT. Opened read-only and immutable, so nothing is written beside an
    input; when a non-empty write-ahead log lies beside it (a run killed before SQLite
    folded it back in), both are read from a private copy within MAX_DB_COPY_BYTES."""
    path = Path(path)
    real = confine(path, root)
    size = _sqlite_size(path)
    wal, shm = (path.with_name(path.name + end) for end in ("-wal", "-shm"))
    for side in (wal, shm):
        if os.path.lexists(side):
            confine(side, root)
    with_wal = wal.is_file() and wal.stat().st_size > 0
    with tempfile.TemporaryDirectory(prefix="evalkit-db-") if with_wal else nullcontext() as tmp:
        if with_wal:
            copy = Path(tmp) / "cache.db"
            left = MAX_DB_COPY_BYTES - _copy_capped(path, copy, MAX_DB_COPY_BYTES)
            size += _copy_capped(wal, copy.with_name("cache.db-wal"), left)
            uri = f"{copy.as_uri()}?mode=ro"
        else:
            uri = f"{real.as_uri()}?mode=ro&immutable=1"
        yield from _query(uri, path, table, select, params, size)


def _query(
    uri: str, path: Path, table: str, select: str, params: Sequence, size: int
) -> Iterator[tuple]:
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(f"cannot open as SQLite ({err})", path) from None
    steps = [DB_STEPS_PER_BYTE * size // 1000 + 1000]  # the handler runs every 1000 steps

    def spend() -> int:
        steps[0] -= 1
        return steps[0] < 0

    try:
        for pragma in (
            f"hard_heap_limit = {MAX_DB_HEAP_BYTES}",
            "temp_store = MEMORY",
            "query_only = 1",
            "trusted_schema = 0",
            "mmap_size = 0",
        ):
            con.execute(f"PRAGMA {pragma}")
        con.set_progress_handler(spend, 1000)
        kind = con.execute(
            "SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE", (table,)
        ).fetchall()
        if not kind:
            raise InputError(f"no table {table}; not read", path)
        found, sql = kind[0]
        if found != "table" or str(sql or "").lstrip()[:14].upper() == "CREATE VIRTUAL":
            found = "a virtual table" if found == "table" else f"a {found}"
            raise InputError(f"{table} is {found}, not a table; not read", path)
        rows = con.execute(f'SELECT {select} FROM "{table}" ORDER BY rowid', tuple(params))
        for count, row in enumerate(rows, start=1):
            if count > MAX_DB_ROWS:
                raise InputError(f"more than {MAX_DB_ROWS} rows in {table}; not read", path)
            yield row
    except sqlite3.Error as err:
        if steps[0] < 0:
            raise InputError(
                f"reading it took more than {DB_STEPS_PER_BYTE} SQLite steps a byte; not read", path
            ) from None
        raise InputError(f"unreadable SQLite database ({err})", path) from None
    except MemoryError:
        raise InputError(
            f"needs more than {MAX_DB_HEAP_BYTES} bytes of SQLite memory; not read", path
        ) from None
    finally:
        con.close()
