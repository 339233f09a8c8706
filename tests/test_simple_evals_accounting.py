"""validate keeps its own table on simple-evals item stores (issue 47, item 7): a missing
item is `incomplete` whatever results.yml says; a partial store from a stopped run is read
and reported incomplete, however few rows it holds, while a key past the run's list is
refused; a score its own grading record does not give, or with no reply behind it, makes
the run invalid.

Every case is a mutated copy of a real store: the bundled baseline's GPQA task
(nemo-evaluator 0.2.8, nvidia-simple-evals 26.3 against the loopback stub,
tests/data/suite/PROVENANCE.md). The mutations are made up here, each standing for the
mistake its test names; what the harness writes (keys are positions of its item list,
rows stored as items finish, in no list order) is from simple-evals 26.3 `common.py`
`map_with_progress` and benchmarks/simple_evals/layout.py.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.runs.run import load_runs
from helpers.bundled import GPQA, task_dir

BASE = task_dir("baseline", GPQA)
DB = Path("artifacts/gpqa_diamond/cache/cache.sqlite/cache.db")
RUN_CONFIG = Path("artifacts/run_config.yml")
RESULTS = Path("artifacts/results.yml")


def _copy(tmp_path: Path) -> Path:
    task = tmp_path / GPQA
    shutil.copytree(BASE, task)
    return task


def _rows(task: Path) -> dict[int, dict]:
    with sqlite3.connect(task / DB) as con:
        found = {int(k): json.loads(v) for k, v in con.execute("SELECT key, value FROM Cache")}
    con.close()
    return found


def _keep(task: Path, keys: set[int]) -> None:
    with sqlite3.connect(task / DB) as con:
        for (key,) in con.execute("SELECT key FROM Cache").fetchall():
            if int(key) not in keys:
                con.execute("DELETE FROM Cache WHERE key = ?", (key,))
    con.close()


def _rewrite(task: Path, key: int, row: dict) -> None:
    with sqlite3.connect(task / DB) as con:
        con.execute(
            "UPDATE Cache SET value = ? WHERE key = ?", (json.dumps(row).encode(), str(key))
        )
    con.close()


def _set_limit(task: Path, limit: int) -> None:
    """limit_samples in the task's own config.params (the harness's --first_n), and in
    the copy of that config results.yml echoes, as a run with that limit writes both."""
    path = task / RUN_CONFIG
    text = path.read_text()
    assert text.count("\n    limit_samples: null\n") == 1
    path.write_text(text.replace("\n    limit_samples: null\n", f"\n    limit_samples: {limit}\n"))
    assert yaml.safe_load(path.read_text())["config"]["params"]["limit_samples"] == limit
    doc = yaml.safe_load((task / RESULTS).read_text())
    doc["config"]["params"]["limit_samples"] = limit
    (task / RESULTS).write_text(yaml.safe_dump(doc))


def _headline_to_items(task: Path) -> None:
    """results.yml's headline rewritten to the rows' mean, as a script that also edits
    the headline would leave it (so headline-agreement cannot see the edit)."""
    rows = _rows(task)
    mean = sum(r["score"] for r in rows.values()) / 198
    path = task / RESULTS
    doc = yaml.safe_load(path.read_text())
    for section in ("tasks", "groups"):
        scores = doc["results"][section]["gpqa_diamond"]["metrics"]["score"]["scores"]
        for entry in scores.values():
            entry["value"] = mean
    path.write_text(yaml.safe_dump(doc))


def _validate(run_cli, task: Path) -> tuple[int, dict, dict]:
    code, out, _ = run_cli("validate", task, "--format", "json")
    doc = json.loads(out)
    return code, doc, {c["id"]: c for c in doc["checks"]}


# ------------------------------------------------------------------ (a) missing items


def test_one_missing_item_is_incomplete_although_results_yml_survived(tmp_path, run_cli):
    # Before: `valid` (1 of 198 is under the 1 % warning line). The row taken out scored
    # 0, so results.yml's headline still matches the items: only the count can tell.
    task = _copy(tmp_path)
    rows = _rows(task)
    gone = min(k for k, r in rows.items() if r["score"] == 0)
    _keep(task, set(rows) - {gone})
    assert (task / RESULTS).is_file()
    code, doc, checks = _validate(run_cli, task)
    assert code == 1 and doc["verdict"] == "incomplete"
    check = checks["item-outcomes"]
    assert check["status"] == "fail" and check["kind"] == "incomplete"
    assert "missing 1" in check["message"] and "resume the run" in check["message"]
    assert checks["headline-agreement"]["status"] == "pass"


def test_a_missing_last_item_is_seen_when_the_config_fixes_the_list(tmp_path, run_cli):
    # limit_samples 60: the list is items 0..59. Before, the list was guessed from the
    # highest key, so the last item's absence was invisible.
    task = _copy(tmp_path)
    _set_limit(task, 60)
    _keep(task, set(range(59)))
    (task / RESULTS).unlink()  # the 198-item run's headline is not this list's
    code, doc, checks = _validate(run_cli, task)
    check = checks["item-outcomes"]
    assert doc["verdict"] == "incomplete" and check["kind"] == "incomplete"
    assert "1 of 60 items" in check["message"] and "missing 1" in check["message"]


def test_missing_items_beside_other_failures_over_the_bound_stay_invalid(tmp_path, run_cli):
    # Resuming does not mend replies cut at the output limit: invalid wins.
    task = _copy(tmp_path)
    rows = _rows(task)
    for key in sorted(rows)[:20]:
        row = rows[key]
        row["convo"][-1]["content"] = "<think>still thinking"
        row["html"] = row["html"].replace(f"Score: {row['score']}", "Score: 0.0")
        row["score"] = 0.0
        _rewrite(task, key, row)
    _keep(task, set(rows) - {197})
    code, doc, checks = _validate(run_cli, task)
    assert doc["verdict"] == "invalid" and checks["item-outcomes"]["kind"] == "invalid"
    assert "truncated 20" in checks["item-outcomes"]["message"]


# ------------------------------------------------------- (b) a stopped run's partial store


@pytest.mark.parametrize("limit", [60, None], ids=["limit_samples-60", "no-limit"])
def test_a_stopped_runs_partial_store_is_read_and_incomplete(tmp_path, run_cli, limit):
    # The harness wrote 24 of 60 rows, keys up to 59, scattered as it stores them, and
    # stopped before results.yml. Before: exit 2, "not simple-evals item positions".
    task = _copy(tmp_path)
    if limit:
        _set_limit(task, limit)
    kept = set(random.Random(47).sample(range(59), 23)) | {59}
    _keep(task, kept)
    (task / RESULTS).unlink()
    [run] = load_runs(task)
    counts = task_outcomes(run).counts()
    assert sum(counts.values()) == 60 and counts["missing"] == 36
    code, doc, checks = _validate(run_cli, task)
    assert code == 1 and doc["verdict"] == "incomplete"
    assert checks["item-outcomes"]["kind"] == "incomplete"
    assert "missing 36" in checks["item-outcomes"]["message"]


def test_repeats_from_a_framework_default_the_run_does_not_record_are_not_refused(tmp_path):
    # gpqa_diamond_aa_v2 repeats 198 items 5 times by the framework's own default
    # (simple-evals 26.3 framework.yml: n_samples 5), which run_config.yml does not
    # carry; stopped before results.yml, its 198 rows lie anywhere in 990 positions.
    task = _copy(tmp_path)
    config = task / RUN_CONFIG
    config.write_text(
        config.read_text().replace("\n  type: gpqa_diamond\n", "\n  type: gpqa_diamond_aa_v2\n")
    )
    (task / RESULTS).unlink()
    keys = random.Random(7).sample(range(989), 197) + [989]
    with sqlite3.connect(task / DB) as con:
        con.execute("UPDATE Cache SET key = 'k' || key")
        rowids = [r for (r,) in con.execute("SELECT rowid FROM Cache ORDER BY rowid")]
        for rowid, key in zip(rowids, keys, strict=True):
            con.execute("UPDATE Cache SET key = ? WHERE rowid = ?", (str(key), rowid))
    con.close()
    [run] = load_runs(task)
    outcomes = task_outcomes(run)
    counts = outcomes.counts()
    assert sum(counts.values()) == 990 and counts["missing"] == 792
    assert any("n_samples not recorded" in note for note in outcomes.notes)


def test_a_key_past_the_declared_list_is_refused(tmp_path, run_cli):
    # limit_samples 60 with a row keyed 60: no position the harness writes (before: read,
    # 61 items). The store is refused in one line naming the file; nothing is modified.
    task = _copy(tmp_path)
    _set_limit(task, 60)
    _keep(task, set(range(61)))
    before = (task / DB).read_bytes()
    code, _, err = run_cli("validate", task)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "cache.db" in err and "past the 60 positions" in err and "limit_samples 60" in err
    assert (task / DB).read_bytes() == before


def test_a_key_past_gpqa_diamond_is_refused_without_a_limit(tmp_path, run_cli):
    # No limit_samples: the list is at most GPQA-Diamond's 198 rows (x n_samples 1).
    task = _copy(tmp_path)
    with sqlite3.connect(task / DB) as con:
        con.execute("UPDATE Cache SET key = '198' WHERE key = '0'")
    con.close()
    code, _, err = run_cli("score", task)
    assert code == 2 and "past the 198 positions" in err and "gpqa_diamond: 198 rows" in err


# ------------------------------------------------ (c) a score its grading does not give


def test_a_score_set_to_0_against_its_grading_record_is_invalid(tmp_path, run_cli):
    # The row says 0 while its html says extracted B... score 1.0; the headline was
    # recomputed with it. Before: every check passed, `valid`.
    task = _copy(tmp_path)
    rows = _rows(task)
    key = min(k for k, r in rows.items() if r["score"] == 1.0)
    rows[key]["score"] = 0.0
    _rewrite(task, key, rows[key])
    _headline_to_items(task)
    code, doc, checks = _validate(run_cli, task)
    assert code == 1 and doc["verdict"] == "invalid"
    check = checks["item-grading"]
    assert check["status"] == "fail" and check["kind"] == "invalid"
    assert f"item {key} (repeat 0)" in check["message"] and "Score 1.0" in check["message"]
    assert checks["headline-agreement"]["status"] == "pass"  # the edit hid from it


def test_a_score_and_its_score_line_both_zeroed_disagree_with_the_letters(tmp_path, run_cli):
    # The html's Score line edited too: extracted == correct is 1.0 by GPQA's scorer.
    task = _copy(tmp_path)
    rows = _rows(task)
    key = min(k for k, r in rows.items() if r["score"] == 1.0)
    row = rows[key]
    row["score"] = 0.0
    row["html"] = row["html"].replace("Score: 1.0", "Score: 0.0")
    _rewrite(task, key, row)
    _headline_to_items(task)
    code, doc, checks = _validate(run_cli, task)
    assert doc["verdict"] == "invalid"
    message = checks["item-grading"]["message"]
    assert "extracted" in message and "which the eval scores 1.0" in message


def test_a_score_with_no_reply_behind_it_is_invalid(tmp_path, run_cli):
    task = _copy(tmp_path)
    rows = _rows(task)
    key = min(k for k, r in rows.items() if r["score"] == 0.0)
    row = rows[key]
    row["convo"] = row["convo"][:-1]  # the prompt alone
    _rewrite(task, key, row)
    code, doc, checks = _validate(run_cli, task)
    assert doc["verdict"] == "invalid"
    assert "no reply in the row" in checks["item-grading"]["message"]


def test_the_bundled_runs_keep_their_verdicts_and_pass_the_grading_check(run_cli):
    for side, verdict in (("baseline", "valid"), ("candidate", "valid")):
        code, doc, checks = _validate(run_cli, task_dir(side, GPQA))
        assert doc["verdict"] == verdict and checks["item-grading"]["status"] == "pass"
        assert "all 198 graded rows" in checks["item-grading"]["message"]
    code, doc, checks = _validate(run_cli, task_dir("candidate-reasoning", GPQA))
    assert doc["verdict"] == "invalid" and checks["item-grading"]["status"] == "pass"


def test_a_score_too_large_for_a_float_is_out_of_range_not_a_crash(tmp_path, run_cli):
    # Before: "internal error: OverflowError".
    task = _copy(tmp_path)
    rows = _rows(task)
    key = min(rows)
    raw = json.dumps(rows[key]).replace(f'"score": {rows[key]["score"]}', '"score": 1' + "0" * 400)
    with sqlite3.connect(task / DB) as con:
        con.execute("UPDATE Cache SET value = ? WHERE key = ?", (raw.encode(), str(key)))
    con.close()
    code, doc, checks = _validate(run_cli, task)
    assert code == 1 and doc["verdict"] == "invalid"
    assert checks["item-scale"]["status"] == "fail" and "inf" in checks["item-scale"]["message"]
    assert checks["item-grading"]["status"] == "fail"
