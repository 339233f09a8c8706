"""Reading the SQLite databases nemo-evaluator's harnesses leave, bounded and read-only.

Both per-item stores a simple-evals task leaves are the same diskcache layout (a `Cache`
table of key, value; nvidia-simple-evals 26.3 `diskcaching.py`, nemo-evaluator 0.2.8
`adapters/caching/diskcaching.py`): simple-evals' own `<eval>/cache/cache.sqlite/cache.db`
and the adapter's `cache/responses/cache.db`. They are opened read-only and immutable (no
journal or lock file is written beside an input), after a header check, so a file that is
not SQLite, or was cut short while being copied, is refused with one line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import open_binary

MAGIC = b"SQLite format 3\x00"
MAX_VALUE_BYTES = 64 * 1024 * 1024  # one row's value, as for any file read whole


def _check_header(path: Path) -> None:
    """Refuse what SQLite would misread: not a database, or fewer bytes than its header
    says it holds (a copy cut short). Offsets from the SQLite file format (section 1.3)."""
    with open_binary(path, "a SQLite database") as handle:
        header = handle.read(100)
        handle.seek(0, 2)
        size = handle.tell()
    if len(header) < 100 or not header.startswith(MAGIC):
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


def inside(path: Path, root: Path) -> bool:
    real, top = path.resolve(), root.resolve()
    return real == top or top in real.parents


def iter_cache_rows(path: Path, root: Path) -> Iterator[tuple[str, bytes | None]]:
    """(key, value bytes) of each row of a diskcache `Cache` table, in the order the
    writer stored them (rowid). A value kept outside the database (diskcache's .val
    files; not seen from these harnesses) comes back as None."""
    if not inside(path, root):
        raise InputError("symbolic link leaves the run directory; not followed", path)
    _check_header(path)
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(f"cannot open as SQLite ({err})", path) from None
    try:
        rows = con.execute(
            "SELECT key, CASE WHEN length(value) <= ? THEN value END, length(value) "
            "FROM Cache ORDER BY rowid",
            (MAX_VALUE_BYTES,),
        )
        for key, value, length in rows:
            if value is None and length:
                raise InputError(f"a row larger than {MAX_VALUE_BYTES} bytes; not read", path)
            if isinstance(value, str):
                value = value.encode()
            yield str(key), value
    except sqlite3.Error as err:
        raise InputError(f"unreadable SQLite database ({err})", path) from None
    finally:
        con.close()
