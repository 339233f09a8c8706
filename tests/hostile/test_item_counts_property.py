"""Property: whatever keys a simple-evals item store holds and whatever repeat count the
config declares, the reader builds at most twice as many items as rows present, or
refuses the database with one line (issue 38, item 3). On copies of the real store in
tests/data/simple_evals/repeats (PROVENANCE.md there); the keys are made up."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.errors import InputError
from evalkit.runs.run import load_runs
from helpers.tier import examples

REPEATS = Path(__file__).resolve().parents[1] / "data" / "simple_evals" / "repeats"
ITEM_DB = Path("artifacts/gpqa_diamond/cache/cache.sqlite/cache.db")

keys = st.lists(
    st.one_of(st.integers(0, 60), st.integers(0, 10**12)), min_size=1, max_size=48, unique=True
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys, st.integers(1, 10**9))
def test_items_never_outnumber_twice_the_rows(positions, repeats):
    with tempfile.TemporaryDirectory() as tmp:
        task = Path(tmp) / "task"
        shutil.copytree(REPEATS, task)
        config = task / "artifacts" / "run_config.yml"
        config.write_text(config.read_text().replace("n_samples: 4", f"n_samples: {repeats}"))
        with sqlite3.connect(task / ITEM_DB) as con:
            rowids = [r for (r,) in con.execute("SELECT rowid FROM Cache ORDER BY rowid")]
            con.execute("UPDATE Cache SET key = 'k' || rowid")  # out of the way first
            for rowid, key in zip(rowids[: len(positions)], positions, strict=True):
                con.execute("UPDATE Cache SET key = ? WHERE rowid = ?", (str(key), rowid))
            con.execute("DELETE FROM Cache WHERE key LIKE 'k%'")
        con.close()
        [run] = load_runs(task)
        try:
            outcomes = task_outcomes(run)
        except InputError as err:
            assert "not simple-evals item positions" in str(err) and "\n" not in str(err)
            return
        assert len(outcomes.items) <= 2 * len(positions)
