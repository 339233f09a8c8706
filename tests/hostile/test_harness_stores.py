"""Harness readers bounded by what a run holds (issue 38, item 3): SQLite item stores and
response caches, declared counts, links out of the run, value files, long lines and deep
JSON. Every case of the issue rebuilt on copies of the bundled fixtures; big files are
sparse (truncate), so a "3 GB" file costs nothing to make.

The fixtures are the real harness outputs the other outcome tests use
(tests/data/simple_evals/PROVENANCE.md, tests/data/outcomes: nemo-evaluator 0.2.8 with
nvidia-simple-evals / nvidia-lm-eval 26.3); the hostile rows and files planted in them are
made up here.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from evalkit import inputs
from evalkit.benchmarks import adapter_cache
from evalkit.benchmarks.adapter_cache import read_cache
from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.errors import InputError
from evalkit.runs.run import load_runs
from hostile.test_readers import RSS_BOUND_KB, evalkit, one_line_naming

DATA = Path(__file__).resolve().parents[1] / "data"
REPEATS = DATA / "simple_evals" / "repeats"  # n_samples 4, 12 items, 48 rows
LM_EVAL = DATA / "outcomes" / "lm_eval.0"
HLE = DATA / "outcomes" / "hle.0"
ITEM_DB = Path("artifacts/gpqa_diamond/cache/cache.sqlite/cache.db")
RESPONSES = Path("artifacts/cache/responses/cache.db")
# A recursive CTE without end: SQLite keeps every row it made in a temporary b-tree
# (UNION removes duplicates) and sorts them all before the first is returned.
RECURSIVE_VIEW = (
    "CREATE VIEW Cache AS WITH RECURSIVE r(n, b) AS (SELECT 1, randomblob(1000) "
    "UNION SELECT n + 1, randomblob(1000) FROM r) "
    "SELECT n AS key, b AS value, NULL AS filename, n AS rowid FROM r ORDER BY b"
)
QUICK = 30  # seconds; generous for a loaded machine, the refusals take well under one


def _copy(source: Path, tmp_path: Path) -> Path:
    task = tmp_path / "task"
    shutil.copytree(source, task)
    return task


def _outcomes(task: Path):
    [run] = load_runs(task)
    return task_outcomes(run)


def _replace_with_view(db: Path) -> None:
    """A ~240 KB database (one padding blob, as in the issue) whose Cache is the VIEW."""
    db.unlink()
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE pad(x)")
        con.execute("INSERT INTO pad VALUES (randomblob(230000))")
        con.execute(RECURSIVE_VIEW)
    con.close()


@pytest.mark.parametrize("where", [ITEM_DB, RESPONSES])
def test_a_recursive_view_named_cache_is_refused_at_once(tmp_path, where):
    # Before: SQLite spilled about 1 GB of temporary file in 10 s here (8 GB in 12 s in
    # the issue) and would have gone on to tens of GB.
    task = _copy(REPEATS, tmp_path)
    _replace_with_view(task / where)
    assert 200_000 < (task / where).stat().st_size < 300_000
    spill = tmp_path / "sqlite-tmp"
    spill.mkdir()
    os.environ["SQLITE_TMPDIR"] = str(spill)
    try:
        start = time.monotonic()
        code, _, err, rss = evalkit("score", task)
    finally:
        del os.environ["SQLITE_TMPDIR"]
    assert time.monotonic() - start < QUICK
    assert code == 2 and rss < RSS_BOUND_KB
    line = one_line_naming(err, "cache.db")
    assert "Cache is a view, not a table" in line
    assert list(spill.iterdir()) == []


def test_a_virtual_table_named_cache_is_refused(tmp_path):
    task = _copy(REPEATS, tmp_path)
    db = task / ITEM_DB
    db.unlink()
    with sqlite3.connect(db) as con:
        con.execute("CREATE VIRTUAL TABLE Cache USING fts5(key, value)")
    con.close()
    with pytest.raises(InputError, match="Cache is a virtual table"):
        _outcomes(task)


def test_sqlite_memory_and_steps_are_bounded_even_past_the_table_check(tmp_path):
    # Defence in depth, on the same hostile view read as if it had passed the check: the
    # heap limit (temporary storage is in memory) stops it, with no byte on disk.
    db = tmp_path / "view.db"
    with sqlite3.connect(db) as con:
        con.execute(RECURSIVE_VIEW)
        con.execute("CREATE TABLE Real(key, value)")
        con.execute(
            "INSERT INTO Real WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL "
            "SELECT n + 1 FROM c WHERE n < 500000) SELECT n, 'x' FROM c"
        )
    con.close()
    rows = inputs._query(f"{db.as_uri()}?mode=ro&immutable=1", db, "Real", "key", (), 1)
    with pytest.raises(InputError, match="SQLite steps a byte"):
        list(rows)  # 500,000 rows (3 steps each) are past what a 1-byte file allows
    start = time.monotonic()
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro&immutable=1", uri=True)
    con.execute(f"PRAGMA hard_heap_limit = {inputs.MAX_DB_HEAP_BYTES}")
    con.execute("PRAGMA temp_store = MEMORY")
    with pytest.raises(MemoryError):
        con.execute("SELECT key FROM Cache ORDER BY rowid").fetchone()
    con.close()
    assert time.monotonic() - start < QUICK


def test_rows_past_the_cap_are_refused(tmp_path, monkeypatch):
    task = _copy(REPEATS, tmp_path)
    monkeypatch.setattr(inputs, "MAX_DB_ROWS", 10)
    with pytest.raises(InputError, match="more than 10 rows in Cache"):
        _outcomes(task)


def _item_row(db: Path, key: object, value: bytes) -> None:
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO Cache (key, raw, store_time, expire_time, access_time, "
                    "access_count, tag, size, mode, filename, value) "
                    "VALUES (?, 1, 0, NULL, 0, 0, NULL, 0, 1, NULL, ?)", (key, value))  # fmt: skip
    con.close()


def _keep_one_row(db: Path, key: int) -> None:
    with sqlite3.connect(db) as con:
        con.execute("UPDATE Cache SET key = ? WHERE rowid = (SELECT min(rowid) FROM Cache)", (key,))
        con.execute("DELETE FROM Cache WHERE rowid > (SELECT min(rowid) FROM Cache)")
    con.close()


def test_one_row_keyed_300000000_builds_no_missing_items(tmp_path):
    # Before: 300 million "missing" items (MemoryError or the OOM killer).
    task = _copy(REPEATS, tmp_path)
    _keep_one_row(task / ITEM_DB, 300_000_000)
    start = time.monotonic()
    code, _, err, rss = evalkit("score", task)
    assert time.monotonic() - start < QUICK and rss < RSS_BOUND_KB
    line = one_line_naming(err, "cache.db")
    assert code == 2 and "row keys run to 300000000 with 1 rows present" in line


def test_a_declared_repeat_count_builds_no_items_beyond_the_rows(tmp_path):
    task = _copy(REPEATS, tmp_path)
    config = task / "artifacts" / "run_config.yml"
    config.write_text(config.read_text().replace("n_samples: 4", "n_samples: 200000000"))
    assert "n_samples: 200000000" in config.read_text()
    outcomes = _outcomes(task)
    assert len(outcomes.items) == 48  # the rows present, one item each


def test_hle_limit_samples_200000000_builds_at_most_the_question_set(tmp_path):
    # Before: 200 million "unanswered" items.
    task = _copy(HLE, tmp_path)
    config = task / "artifacts" / "run_config.yml"
    config.write_text(config.read_text().replace("limit_samples: 10", "limit_samples: 200000000"))
    start = time.monotonic()
    outcomes = _outcomes(task)
    assert time.monotonic() - start < QUICK
    assert len(outcomes.items) == 2684  # nvidia-hle 26.3's text-only question count


def test_deep_json_in_an_item_row_is_the_documented_refusal(tmp_path):
    # Before: "internal error: RecursionError".
    task = _copy(REPEATS, tmp_path)
    _item_row(task / ITEM_DB, "48", b"[" * 200_000 + b"]" * 200_000)
    code, _, err, _ = evalkit("score", task)
    line = one_line_naming(err, "cache.db")
    assert code == 2 and "row '48': JSON nesting too deep" in line


def test_deep_json_in_a_response_cache_row_is_left_unjoined(tmp_path):
    task = _copy(LM_EVAL, tmp_path)
    with sqlite3.connect(task / RESPONSES) as con:
        con.execute("UPDATE Cache SET value = ? WHERE rowid = 1", (b"[" * 200_000,))
    con.close()
    index = read_cache(task / "artifacts")
    assert index is not None and index.responses == 20


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as out:
        out.truncate(size)
    return path


@pytest.mark.parametrize("side", ["-wal", "-shm"])
def test_a_wal_or_shm_linked_out_of_the_run_is_refused_not_copied(tmp_path, side):
    # Before: a -wal linked to a 3 GB file outside was copied whole into the temp dir.
    task = _copy(LM_EVAL, tmp_path)
    outside = _sparse(tmp_path / "elsewhere.bin", 3 * 1024**3)
    db = task / RESPONSES
    db.with_name(db.name + side).symlink_to(outside)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    os.environ["TMPDIR"] = str(scratch)
    try:
        code, _, err, rss = evalkit("score", task)
    finally:
        del os.environ["TMPDIR"]
    line = one_line_naming(err, f"cache.db{side}")
    assert code == 2 and "leaves the run directory" in line and rss < RSS_BOUND_KB
    assert list(scratch.iterdir()) == []


def test_a_wal_larger_than_the_copy_budget_is_refused_before_copying(tmp_path, monkeypatch):
    task = _copy(LM_EVAL, tmp_path)
    db = task / RESPONSES
    _sparse(db.with_name("cache.db-wal"), 3 * 1024**3)
    monkeypatch.setattr(inputs.tempfile, "tempdir", str(tmp_path))
    with pytest.raises(InputError, match="larger than the .* bytes copied") as err:
        read_cache(task / "artifacts")
    assert "cache.db-wal" in str(err.value)
    assert not [p for p in tmp_path.glob("evalkit-db-*/*") if p.stat().st_size]


def test_a_real_write_ahead_log_is_read_from_a_private_copy(tmp_path):
    # A run killed before SQLite folded its log back in: rows only in the -wal count.
    task = _copy(LM_EVAL, tmp_path)
    db = task / RESPONSES
    live = tmp_path / "live.db"
    shutil.copyfile(db, live)
    con = sqlite3.connect(live)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA wal_autocheckpoint = 0")
    con.execute("DELETE FROM Cache WHERE rowid > 5")
    con.commit()
    shutil.copyfile(live, db)
    shutil.copyfile(live.with_name("live.db-wal"), db.with_name("cache.db-wal"))
    con.close()
    before = sorted(p.name for p in db.parent.iterdir())
    index = read_cache(task / "artifacts")
    assert index is not None and index.responses == 5
    assert sorted(p.name for p in db.parent.iterdir()) == before  # nothing written beside


def _body(size: int) -> bytes:
    """A chat body cut at the limit whose content is SIZE bytes of text."""
    content = "x" * size
    return json.dumps(
        {"choices": [{"message": {"content": content}, "finish_reason": "length"}]}
    ).encode()


def _rows_naming(db: Path, names: list[str]) -> None:
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM Cache")
        con.executemany(
            "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count, "
            "tag, size, mode, filename, value) VALUES (?, 1, 0, NULL, 0, 0, NULL, 0, 4, ?, NULL)",
            [(f"k{n}", name) for n, name in enumerate(names)],
        )
    con.close()


def test_two_hundred_rows_naming_one_value_file_read_and_decode_it_once(tmp_path, monkeypatch):
    # Before: 200 reads and decodes of one 60 MB file (14 s); the count is what matters,
    # so the file here is 6 MB.
    task = _copy(LM_EVAL, tmp_path)
    db = task / RESPONSES
    (db.parent / "ab").mkdir()
    (db.parent / "ab" / "one.val").write_bytes(_body(6 * 1024 * 1024))
    _rows_naming(db, ["ab/one.val"] * 200)
    reads, decodes = [], []
    real_read, real_summary = adapter_cache.read_sized, adapter_cache._summary
    monkeypatch.setattr(adapter_cache, "read_sized", lambda *a: reads.append(a) or real_read(*a))
    monkeypatch.setattr(adapter_cache, "_summary", lambda r: decodes.append(1) or real_summary(r))
    index = read_cache(task / "artifacts")
    assert len(reads) == 1 and len(decodes) == 1
    assert (
        index.responses == 200
        and sum(index.by_text[adapter_cache.text_digest("x" * 6 * 1024 * 1024)].values()) == 200
    )


def test_value_files_share_one_byte_budget(tmp_path, monkeypatch):
    task = _copy(LM_EVAL, tmp_path)
    db = task / RESPONSES
    for name in ("a.val", "b.val"):
        (db.parent / name).write_bytes(_body(1000))
    _rows_naming(db, ["a.val", "b.val"])
    monkeypatch.setattr(adapter_cache, "MAX_VALUE_FILES_BYTES", 1500)
    with pytest.raises(InputError, match="value files total more than 1500 bytes"):
        read_cache(task / "artifacts")


def test_an_800_mb_samples_line_is_refused_under_the_rollouts_cap(tmp_path):
    # Before: 1.7 GB of memory for the line. The cap is the rollouts' (MAX_RECORD_BYTES).
    task = _copy(LM_EVAL, tmp_path)
    [samples] = (task / "artifacts" / "served-model").glob("samples_*.jsonl")
    with open(samples, "r+b") as out:
        out.seek(0, 2)
        out.write(b'{"doc_id": 99, "resps": "')
        out.truncate(800 * 1024**2)
    code, _, err, rss = evalkit("score", task)
    line = one_line_naming(err, samples.name)
    assert code == 2 and f"a line longer than {inputs.MAX_RECORD_BYTES} bytes" in line
    assert rss < RSS_BOUND_KB


def test_deep_json_in_a_gym_aggregate_is_the_documented_refusal(tmp_path):
    from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries

    path = tmp_path / "aggregate_metrics.json"
    deep = b"[" * 200_000 + b"]" * 200_000
    path.write_bytes(b'[{"agent_metrics": {"x": ' + deep + b"}}]")
    with pytest.raises(InputError, match="JSON nesting too deep"):
        read_aggregate_entries(path)


def test_an_html_of_unclosed_result_lines_is_read_in_linear_time(tmp_path):
    # Before: the extracted-answer pattern rescanned the row from every "<p>" prefix,
    # quadratic in the row: well past QUICK here, hours for a 64 MB row.
    task = _copy(REPEATS, tmp_path)
    db = task / ITEM_DB
    with sqlite3.connect(db) as con:
        (raw,) = con.execute("SELECT value FROM Cache ORDER BY rowid LIMIT 1").fetchone()
        row = json.loads(raw)
        row["html"] = "<p>Extracted Answer: <p>Score: " * 30_000  # 930 KB
        con.execute(
            "UPDATE Cache SET value = ? WHERE rowid = (SELECT min(rowid) FROM Cache)",
            (json.dumps(row).encode(),),
        )
    con.close()
    start = time.monotonic()
    outcomes = _outcomes(task)
    assert time.monotonic() - start < QUICK and len(outcomes.items) == 48
