"""Reading the SQLite databases nemo-evaluator's harnesses leave, bounded and read-only.

Both per-item stores a simple-evals task leaves are the same diskcache layout (a `Cache`
table of key, value; nvidia-simple-evals 26.3 `diskcaching.py`, nemo-evaluator 0.2.8
`adapters/caching/diskcaching.py`): simple-evals' own `<eval>/cache/cache.sqlite/cache.db`
and the adapter's `cache/responses/cache.db`. They are read through the one bounded
SQLite reader (evalkit.inputs.iter_sqlite_rows: a real table only, a row cap, temporary
storage in memory, read-only and immutable, nothing outside the run followed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import MAX_FILE_BYTES, SQLITE_MAGIC, iter_sqlite_rows

MAGIC = SQLITE_MAGIC
MAX_VALUE_BYTES = MAX_FILE_BYTES  # one row's value, as for any file read whole


def inside(path: Path, root: Path) -> bool:
    real, top = path.resolve(), root.resolve()
    return real == top or top in real.parents


def iter_cache_rows(path: Path, root: Path) -> Iterator[tuple[str, bytes | None]]:
    """(key, value bytes) of each row of a diskcache `Cache` table, in the order the
    writer stored them (rowid). A value kept outside the database (diskcache's .val
    files; not seen from these harnesses) comes back as None."""
    rows = iter_sqlite_rows(
        path,
        root,
        "Cache",
        "key, CASE WHEN length(value) <= ? THEN value END, length(value)",
        (MAX_VALUE_BYTES,),
    )
    for key, value, length in rows:
        if value is None and length:
            raise InputError(f"a row larger than {MAX_VALUE_BYTES} bytes; not read", path)
        if isinstance(value, str):
            value = value.encode()
        yield str(key), value
