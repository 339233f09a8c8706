"""Property: whatever keys a simple-evals item store holds and whatever repeat count the
config declares, the reader builds items only at positions of the list the harness
writes from, never more than a store is read to (issue 38, item 3), reads every row it
was given once, and refuses the database with one line only when a key is past that
list (issue 47, item 7: a real partial store has gaps anywhere, so the rows present say
nothing about how many are missing). On copies of the real store in
tests/data/simple_evals/repeats (PROVENANCE.md there: task gpqa_diamond, limit_samples
unset, so the list is at most GPQA-Diamond's 198 rows x n_samples); the keys are made
up."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.errors import InputError
from evalkit.inputs import MAX_DB_ROWS
from evalkit.runs.outcomes import Outcome
from evalkit.runs.run import load_runs
from helpers.tier import examples

REPEATS = Path(__file__).resolve().parents[1] / "data" / "simple_evals" / "repeats"
ITEM_DB = Path("artifacts/gpqa_diamond/cache/cache.sqlite/cache.db")

keys = st.lists(
    st.one_of(st.integers(0, 60), st.integers(0, 10**12)), min_size=1, max_size=48, unique=True
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys, st.integers(1, 10**9))
def test_items_stay_within_the_declared_list_and_the_row_cap(positions, repeats):
    with tempfile.TemporaryDirectory() as tmp:
        task = Path(tmp) / "task"
        shutil.copytree(REPEATS, task)
        config = task / "artifacts" / "run_config.yml"
        config.write_text(config.read_text().replace("n_samples: 4", f"n_samples: {repeats}"))
        (task / "artifacts" / "results.yml").unlink()  # a stopped run: the config alone
        with sqlite3.connect(task / ITEM_DB) as con:
            rowids = [r for (r,) in con.execute("SELECT rowid FROM Cache ORDER BY rowid")]
            con.execute("UPDATE Cache SET key = 'k' || rowid")  # out of the way first
            for rowid, key in zip(rowids[: len(positions)], positions, strict=True):
                con.execute("UPDATE Cache SET key = ? WHERE rowid = ?", (str(key), rowid))
            con.execute("DELETE FROM Cache WHERE key LIKE 'k%'")
        con.close()
        [run] = load_runs(task)
        declared = 198 * repeats if 198 * repeats <= MAX_DB_ROWS else None
        try:
            outcomes = task_outcomes(run)
        except InputError as err:
            assert "not simple-evals item positions" in str(err) and "\n" not in str(err)
            impossible = max(positions) >= (declared or MAX_DB_ROWS)
            assert impossible or declared is None
            return
        assert len(outcomes.items) <= (declared or MAX_DB_ROWS)
        written = [i for i in outcomes.items if i.outcome is not Outcome.MISSING]
        assert len(written) == len(positions)
