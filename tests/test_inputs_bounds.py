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
from helpers.limits import limits_row

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


# ------------------------------------------------------------------ each bound at its edge


def test_a_file_of_exactly_the_limit_is_read_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert inputs.read_bytes(path, limit=10) == b"x" * 10
    with pytest.raises(inputs.InputError, match="larger than 9 bytes"):
        inputs.read_bytes(path, limit=9)


def _lines(data: bytes, cap: int):
    import io

    return list(inputs.iter_capped_lines(io.BytesIO(data), cap))


def test_capped_lines_cut_at_the_cap_and_keep_the_full_length():
    assert _lines(b"abcd\nef\n", 5) == [(b"abcd\n", 5), (b"ef\n", 3)]
    # a line of exactly the cap without its newline in the first piece: cut, newline kept
    assert _lines(b"abcde\nxy", 5) == [(b"abcde\n", 6), (b"xy", 2)]
    assert _lines(b"abcdefghijklm\nz\n", 5) == [(b"abcde\n", 14), (b"z\n", 2)]
    assert _lines(b"abcdefghij", 5) == [(b"abcde", 10)]  # a last line in progress: no newline
    assert _lines(b"", 5) == []


def test_records_are_whole_up_to_the_bound_and_refused_past_it(monkeypatch):
    import io

    monkeypatch.setattr(inputs, "_CHUNK", 4)
    monkeypatch.setattr(inputs, "MAX_RECORD_BYTES", 10)
    good = b"123456789\n"  # exactly the bound, newline included
    assert list(inputs.iter_records(io.BytesIO(good + b"ab\n"), "r.jsonl")) == [good, b"ab\n"]
    assert list(inputs.iter_records(io.BytesIO(b"1234567890"), "r.jsonl")) == [b"1234567890"]
    with pytest.raises(inputs.InputError, match="longer than 10 bytes") as err:
        list(inputs.iter_records(io.BytesIO(b"ok\n" + b"x" * 11 + b"\n"), "r.jsonl", 7))
    assert err.value.line == 8  # the second line of a stream that starts at line 7


def test_skip_line_counts_what_it_skipped_within_the_bound(monkeypatch):
    import io

    monkeypatch.setattr(inputs, "_CHUNK", 4)
    monkeypatch.setattr(inputs, "MAX_RECORD_BYTES", 10)
    handle = io.BytesIO(b"123456789\nnext\n")
    assert inputs.skip_line(handle, "r") == 10
    assert handle.readline() == b"next\n"
    with pytest.raises(inputs.InputError, match="longer than 10 bytes"):
        inputs.skip_line(io.BytesIO(b"x" * 11 + b"\n"), "r")


def test_decode_names_the_line_of_a_nul_or_a_bad_byte_and_drops_a_bom():
    with pytest.raises(inputs.InputError, match="NUL byte") as err:
        inputs.decode_text(b"a\nb\n\x00", "f")
    assert err.value.line == 3
    with pytest.raises(inputs.InputError, match="byte 0xff") as err:
        inputs.decode_text(b"a\n\xff", "f")
    assert err.value.line == 2
    assert inputs.decode_text("\ufeffa: 1\n".encode(), "f") == "a: 1\n"


def test_yaml_depth_at_the_bound_is_read_one_more_is_refused(monkeypatch):
    monkeypatch.setattr(inputs, "MAX_YAML_DEPTH", 3)
    assert inputs.parse_yaml("a: [[1]]\n", "f") == {"a": [[1]]}  # three collections
    with pytest.raises(inputs.InputError, match="deeper than 3 levels") as err:
        inputs.parse_yaml("a:\n  b: [[1]]\n", "f")
    assert err.value.line == 2
    # siblings do not add up: depth is counted down as each collection ends
    assert inputs.parse_yaml("a: [[1], [2], [3]]\nb: [[4]]\n", "f") == {
        "a": [[1], [2], [3]], "b": [[4]]}  # fmt: skip


def test_yaml_values_at_the_bound_are_read_one_more_is_refused(monkeypatch):
    monkeypatch.setattr(inputs, "MAX_YAML_NODES", 5)  # a mapping, two keys, two values
    assert inputs.parse_yaml("a: 1\nb: 2\n", "f") == {"a": 1, "b": 2}
    with pytest.raises(inputs.InputError, match="more than 5 values"):
        inputs.parse_yaml("a: [1]\nb: 2\n", "f")  # the list and its item: 6
    with pytest.raises(inputs.InputError, match="more than 5 values") as err:
        inputs.parse_yaml("a: &x [1, 2]\nb: *x\n", "f")  # an alias counts as its target
    assert str(err.value).startswith("f:1: ")  # the value past the bound: `[1, 2]`, line 1


def test_a_value_the_constructor_rejects_is_one_error():
    # YAML 1.1's implicit timestamp: month 13 is a ValueError inside PyYAML's constructor
    with pytest.raises(inputs.InputError, match="bad YAML value: month must be in 1..12"):
        inputs.parse_yaml("a: 2001-13-05\n", "f")


def test_yaml_past_its_size_is_refused_before_it_is_parsed(monkeypatch):
    monkeypatch.setattr(inputs, "MAX_YAML_CHARS", 8)
    assert inputs.parse_yaml("a: 12345", "f") == {"a": 12345}
    with pytest.raises(inputs.InputError, match="larger than 8 characters"):
        inputs.parse_yaml("a: 123456", "f")


def test_a_yaml_error_names_its_line():
    with pytest.raises(inputs.InputError, match="malformed YAML") as err:
        inputs.parse_yaml("a: 1\nb: [\n", "f")
    assert err.value.line == 3
    with pytest.raises(inputs.InputError) as err:
        inputs.parse_yaml("a: 1\nb: \x07\n", "f")  # a character YAML forbids: its line
    assert err.value.line == 2


def test_a_truncated_database_is_refused_by_its_header(tmp_path):
    data = ITEM_DB.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    assert len(data) % page == 0 and len(data) > page
    whole = tmp_path / "whole.db"
    whole.write_bytes(data)
    assert inputs._sqlite_size(whole) == len(data)
    cut = tmp_path / "cut.db"
    cut.write_bytes(data[:-1])
    with pytest.raises(inputs.InputError, match=f"header says {len(data)} bytes"):
        inputs._sqlite_size(cut)
    short = tmp_path / "short.db"
    short.write_bytes(data[:99])
    with pytest.raises(inputs.InputError, match="no SQLite header"):
        inputs._sqlite_size(short)


def test_the_documented_limits_are_the_readers_bounds():
    """The "Limits" table is the contract; a bound changed in the code alone fails here."""
    mib = 1024 * 1024
    yaml_row = limits_row("YAML evalkit reads")
    assert yaml_row.startswith(
        f"{inputs.MAX_YAML_CHARS // mib} MiB of text, nesting {inputs.MAX_YAML_DEPTH} deep, "
        f"{inputs.MAX_YAML_NODES:,} values"
    )
    assert inputs.MAX_YAML_CHARS % mib == 0
    assert limits_row("Any other file read whole") == f"{inputs.MAX_FILE_BYTES // mib} MiB"
    assert f"{inputs.MAX_LINE_BYTES // mib} MiB kept of one line" in limits_row("Log lines")
    assert limits_row("One rollouts record").startswith(
        f"{inputs.MAX_RECORD_BYTES // mib} MiB for one line"
    )
    assert f"gathered in {inputs._CHUNK // mib} MiB pieces" in limits_row("One lm-eval")
    sqlite_row = limits_row("SQLite databases")
    for text in (
        f"{inputs.MAX_DB_ROWS:,} rows",
        f"{inputs.MAX_DB_HEAP_BYTES // mib} MiB SQLite heap limit",
        f"{inputs.DB_STEPS_PER_BYTE} VM steps per byte",
        f"at most {inputs.MAX_DB_COPY_BYTES // 1024**3} GiB",
    ):
        assert text in sqlite_row
    for value in (inputs.MAX_FILE_BYTES, inputs.MAX_LINE_BYTES, inputs.MAX_RECORD_BYTES,
                  inputs._CHUNK, inputs.MAX_DB_HEAP_BYTES, inputs.MAX_DB_COPY_BYTES):  # fmt: skip
        assert value % mib == 0  # the table's round figures are the exact bounds


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("ELOOP", "symbolic link loop"),
        ("ENXIO", "is a socket or a device with nothing behind it; not read"),
        ("EIO", "cannot read (Input/output error)"),  # below ELOOP's number
        ("EOVERFLOW", "cannot read (Value too large for defined data type)"),  # above it
    ],
)
def test_each_os_error_is_named_as_itself(code, message):
    import errno
    import os

    number = getattr(errno, code)
    err = inputs._os_error(OSError(number, os.strerror(number)), Path("f"), "a file")
    assert err.message == message
