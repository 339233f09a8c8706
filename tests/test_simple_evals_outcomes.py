"""simple-evals' per-item data (issue 31, "a failure is not a zero"): every outcome class
read from databases the real harness wrote (nemo-evaluator 0.2.8, nvidia-simple-evals
26.3, against the loopback stub: tests/data/suite/PROVENANCE.md), then score, validate
and compare on them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.benchmarks.results_yml.denominators import item_means, mean_and_stderr
from evalkit.runs.outcomes import ItemResult, Outcome, TaskOutcomes
from evalkit.runs.run import load_runs
from helpers.bundled import GPQA, task_dir

SUITE = Path(__file__).parent / "data" / "suite"
BASE, CAND, BROKEN = (task_dir(s, GPQA) for s in ("baseline", "candidate", "candidate-reasoning"))
DB = Path("artifacts/gpqa_diamond/cache/cache.sqlite/cache.db")


def _outcomes(task: Path) -> TaskOutcomes:
    [run] = load_runs(task)
    found = task_outcomes(run)
    assert found is not None
    return found


def test_every_outcome_class_is_read_from_the_real_harness_rows():
    broken = _outcomes(BROKEN)
    counts = broken.counts()
    assert len(broken.items) == 198 and broken.harness == "simple_evals"
    assert {"scored", "reasoning_only", "truncated", "unparsed"} <= set(counts)
    assert counts["reasoning_only"] > 40  # the broken reasoning setup's signature
    by = {i.outcome: i for i in broken.items}
    # finish_reason comes from the adapter's response cache, joined by the reply's text
    assert by[Outcome.TRUNCATED].finish_reason == "length"
    assert by[Outcome.REASONING_ONLY].finish_reason == "stop"
    assert by[Outcome.SCORED].score in (0.0, 1.0)
    assert all(i.score == 0.0 for i in broken.items if i.outcome is not Outcome.SCORED)
    # the healthy side: only the model's own unparsed replies fail
    assert set(_outcomes(BASE).counts()) == {"scored", "unparsed"}


def test_items_pair_with_the_same_prompts_on_both_sides():
    base, cand = _outcomes(BASE), _outcomes(CAND)
    assert [i.pair_key for i in base.items] == [i.pair_key for i in cand.items]
    assert all(i.prompt_digest for i in base.items)


def test_score_prints_the_denominators(run_cli):
    code, out, _ = run_cli("score", BROKEN)
    assert code == 0
    assert "198 items" in out and "reasoning_only" in out and "scored as answers" in out
    code, out, _ = run_cli("score", BROKEN, "--format", "json")
    [task] = json.loads(out)["tasks"]
    assert task["outcomes"]["items"] == 198 and task["outcomes"]["items_match_headline"]
    assert task["stderr_source"].startswith("items")


def test_validate_calls_the_broken_reasoning_run_invalid_and_names_the_fix(run_cli):
    code, out, _ = run_cli("validate", BROKEN, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["verdict"] == "invalid"
    [check] = [c for c in doc["checks"] if c["id"] == "item-outcomes"]
    assert check["status"] == "fail" and "reasoning_only" in check["message"]
    assert "--reasoning-parser" in check["message"]
    code, out, _ = run_cli("validate", BASE, "--format", "json")
    [check] = [c for c in json.loads(out)["checks"] if c["id"] == "item-outcomes"]
    assert code == 0 and check["status"] == "pass"


def test_compare_is_not_comparable_when_failures_differ_and_names_the_cause(run_cli):
    code, out, _ = run_cli("compare", BASE, BROKEN, "--format", "json")
    [row] = json.loads(out)["tasks"]
    assert row["verdict"] == "not_comparable" and row["paired"]
    assert row["failures"]["shifted"] and row["failures"]["cause"] == "reasoning_only"
    assert any("reasoning_content" in r and "reasoning parser" in r for r in row["reasons"])


def test_compare_pairs_gpqa_on_the_healthy_pair(run_cli):
    code, out, _ = run_cli("compare", BASE, CAND, "--format", "json")
    [row] = json.loads(out)["tasks"]
    assert row["paired"] and row["n"] == 198 and not row["failures"]["shifted"]
    lo, hi = row["ci95"]
    assert hi - lo < 12  # the unpaired interval on the same runs was about 18 points wide


def test_a_database_that_is_not_sqlite_or_cut_short_is_refused(tmp_path, run_cli):
    task = tmp_path / GPQA
    shutil.copytree(BASE, task)
    db = task / DB
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    code, _, err = run_cli("score", task)
    assert code == 2 and "truncated SQLite database" in err and len(err.splitlines()) == 1
    db.write_bytes(b"not a database\n" * 10)
    code, _, err = run_cli("validate", task)
    assert code == 2 and "not a SQLite database" in err and len(err.splitlines()) == 1
    assert db.read_bytes() == b"not a database\n" * 10  # inputs never modified


def test_stderr_is_recomputed_per_item_with_repeats_averaged_first():
    # Two items, two repeats, in the harness's block layout: item 0 scores 1 and 1, item
    # 1 scores 0 and 1 -> item means 1.0 and 0.5 -> SE = sd([1, .5]) / sqrt(2) = 0.25.
    rows = [("0", 0, 1.0), ("1", 0, 0.0), ("0", 1, 1.0), ("1", 1, 1.0)]
    outcomes = TaskOutcomes(
        "simple_evals",
        [ItemResult(i, "d" + i, r, s, Outcome.SCORED) for i, r, s in rows],
    )
    means = item_means(outcomes)
    assert means == {"0": 1.0, "1": 0.5}
    mean, se = mean_and_stderr(list(means.values()))
    assert mean == 0.75 and abs(se - 0.25) < 1e-12


FIXTURES = Path(__file__).parent / "data" / "simple_evals"


def test_repeats_map_to_items_and_stderr_comes_from_the_items(run_cli):
    # tests/data/simple_evals/PROVENANCE.md: n_samples 4, rows in completion order
    outcomes = _outcomes(FIXTURES / "repeats")
    assert len(outcomes.items) == 48
    assert {i.item_id for i in outcomes.items} == {str(n) for n in range(12)}
    assert {i.repeat for i in outcomes.items} == {0, 1, 2, 3}
    code, out, _ = run_cli("score", FIXTURES / "repeats", "--format", "json")
    [task] = json.loads(out)["tasks"]
    assert code == 0 and task["outcomes"]["repeats"] == 4
    # results.yml's figure depends on the run's completion order (0.0470 in this one); the
    # items' does not: the stub answers an item the same way on every repeat.
    assert abs(task["stderr"] - 0.1124) < 1e-4
    assert task["stderr_results_yml"] < task["stderr"] - 0.03


def test_an_aborted_run_has_missing_items_and_its_endpoint_errors(run_cli):
    outcomes = _outcomes(FIXTURES / "aborted")
    assert outcomes.counts()["scored"] == 20 and outcomes.counts()["missing"] > 0
    failures = {f.outcome: f for f in outcomes.run_failures}
    assert Outcome.MISSING in failures
    assert failures[Outcome.ENDPOINT_ERROR].count == 2
    assert "503" in failures[Outcome.ENDPOINT_ERROR].evidence
    code, out, _ = run_cli("validate", FIXTURES / "aborted", "--format", "json")
    doc = json.loads(out)
    checks = {c["id"]: c for c in doc["checks"]}
    assert doc["verdict"] == "incomplete" and checks["item-outcomes"]["kind"] == "incomplete"
    # the harness's own retry lines (its stdout, kept as the client log) are read too
    assert checks["http-retries"]["status"] == "warn" and "503" in checks["http-retries"]["message"]


def test_a_database_symlinked_out_of_the_run_is_not_read(tmp_path, run_cli):
    task = tmp_path / GPQA
    shutil.copytree(BASE, task)
    outside = tmp_path / "elsewhere.db"
    shutil.move(task / DB, outside)
    (task / DB).symlink_to(outside)
    code, _, err = run_cli("score", task)
    assert code == 2 and "leaves the run directory" in err


def test_items_on_one_side_only_compare_unpaired_and_say_so(tmp_path, run_cli):
    task = tmp_path / GPQA
    shutil.copytree(BASE, task)
    (task / DB).unlink()
    code, out, _ = run_cli("compare", task, CAND, "--format", "json")
    [row] = json.loads(out)["tasks"]
    assert row["paired"] is False and "unpaired" in row["paired_why"]
    assert row["notes"][0] == "per-item files on one side only: compared unpaired"
