"""Issue 52: the SQLite bounds asserted on the connection evalkit itself opens.

tests/hostile/test_harness_stores.py shows what SQLite does under the heap limit and the
in-memory temporary store on a connection the test opens; nothing there fails when
evalkit's reader stops setting them (a 300 MB row is then read whole). Here the reader of
simple-evals' item store (evalkit.benchmarks.simple_evals.store, over
evalkit.inputs.iter_sqlite_rows) reads the bundled run's store (tests/data/simple_evals/
repeats, nvidia-simple-evals 26.3's diskcache layout) and its own connection is asked.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit import inputs
from evalkit.benchmarks.simple_evals.store import iter_cache_rows

REPEATS = Path(__file__).resolve().parent / "data" / "simple_evals" / "repeats"
ITEM_DB = REPEATS / "artifacts/gpqa_diamond/cache/cache.sqlite/cache.db"
TEMP_STORE_MEMORY = 2  # SQLite's pragma temp_store: 0 default, 1 file, 2 memory


def test_the_reader_opens_its_connection_with_every_bound(monkeypatch):
    opened = []
    connect = sqlite3.connect

    def recording(*args, **kwargs):
        con = connect(*args, **kwargs)
        opened.append(con)
        return con

    monkeypatch.setattr(inputs.sqlite3, "connect", recording)
    rows = iter_cache_rows(ITEM_DB, REPEATS)
    first = next(rows)  # the connection is open while rows are read
    (con,) = opened

    def pragma(name: str):
        return con.execute(f"PRAGMA {name}").fetchone()[0]

    assert pragma("temp_store") == TEMP_STORE_MEMORY
    assert pragma("query_only") == 1
    assert pragma("trusted_schema") == 0
    assert pragma("mmap_size") == 0
    assert pragma("hard_heap_limit") == inputs.MAX_DB_HEAP_BYTES
    rest = list(rows)
    assert first[0] and len(rest) == 47  # 12 items x 4 samples
    with pytest.raises(sqlite3.ProgrammingError):
        con.execute("SELECT 1")  # closed once read


# The heap limit is process-wide in SQLite (sqlite3_hard_heap_limit64): any earlier read
# in a test worker would have set it, so a fresh process tells whether this read did.
_FRESH = """
import json, sqlite3, sys
from pathlib import Path
from evalkit.benchmarks.simple_evals.store import iter_cache_rows

def limit():
    con = sqlite3.connect(":memory:")
    try:
        return con.execute("PRAGMA hard_heap_limit").fetchone()[0]
    finally:
        con.close()

before = limit()
rows = sum(1 for _ in iter_cache_rows(Path(sys.argv[1]), Path(sys.argv[2])))
print(json.dumps([before, limit(), rows]))
"""


@pytest.mark.entrypoint  # a fresh process: the heap limit outlives the connection
def test_a_read_in_a_fresh_process_sets_the_heap_limit():
    run = subprocess.run(
        [sys.executable, "-c", _FRESH, str(ITEM_DB), str(REPEATS)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    before, after, rows = json.loads(run.stdout)
    assert (before, after, rows) == (0, inputs.MAX_DB_HEAP_BYTES, 48)
