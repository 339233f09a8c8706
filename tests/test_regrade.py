"""`evalkit regrade` end to end on generated runs, healthy and broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.rungen import write_gdpval_run, write_mrcr_run

REQUIRED = {
    "rollouts",
    "duplicates",
    "truncated_lines",
    "pass_at_1",
    "strata",
    "prefix_matched",
    "reward_mismatches",
    "aggregate_agrees",
}


def regrade_json(run_cli, path, *extra):
    code, out, err = run_cli("regrade", path, "--format", "json", *extra)
    return code, (json.loads(out) if out else None), err


def artifacts(task: Path) -> Path:
    return task / "artifacts"


@pytest.fixture(scope="module")
def healthy(tmp_path_factory) -> Path:
    return write_mrcr_run(
        tmp_path_factory.mktemp("ok"),
        n_items=36,
        seed=4,
        skill=0.5,
        leak_fraction=0.1,
        length_fraction=0.1,
        overflow_fraction=0.05,
        reasoning_only_fraction=0.1,
    )


def test_healthy_run_agrees(run_cli, healthy):
    code, doc, err = regrade_json(run_cli, healthy)
    assert code == 0, err
    assert set(doc) >= REQUIRED
    assert doc["rollouts"] == 36 and doc["duplicates"] == 0 and doc["truncated_lines"] == 0
    assert doc["reward_mismatches"] == 0 and doc["aggregate_agrees"] is True
    metrics = json.loads(
        (artifacts(healthy) / "evaluator_rollouts_aggregate_metrics.json").read_text()
    )[0]["agent_metrics"]
    assert doc["pass_at_1"] == pytest.approx(metrics["pass@1/accuracy"], rel=1e-9)
    assert set(doc["strata"]) == {"2", "4", "8"}
    for n, value in doc["strata"].items():
        assert value == pytest.approx(metrics[f"n_needles={n}/pass@1/accuracy"], rel=1e-9)
    assert doc["prefix_matched"] == pytest.approx(metrics["mean/prefix_matched"])


def test_flags_count_the_generated_failures(run_cli, healthy):
    _code, doc, _err = regrade_json(run_cli, healthy)
    rows = [
        json.loads(line)
        for line in (artifacts(healthy) / "evaluator_rollouts.jsonl").read_text().splitlines()
    ]
    texts = [
        [p["text"] for i in r["response"]["output"] if i["type"] == "message" for p in i["content"]]
        for r in rows
    ]
    flags = doc["flags"]
    assert (
        flags["no_message"]
        == sum(1 for r in rows if not any(i["type"] == "message" for i in r["response"]["output"]))
        > 0
    )
    assert flags["usage_null"] == sum(1 for r in rows if r["response"]["usage"] is None) > 0
    assert flags["reasoning_leak"] == sum(1 for t in texts if any("</think>" in x for x in t)) > 0
    assert flags["length_capped"] == sum(1 for r in rows if r["response"]["incomplete_details"]) > 0


def test_text_output(run_cli, healthy):
    code, out, _err = run_cli("regrade", healthy)
    assert code == 0
    assert "aggregate file agrees  yes" in out and "8 needles" in out
    assert "every stored reward and aggregate reproduced" in out


def test_rollouts_file_directly_and_artifacts_dir(run_cli, healthy):
    code, doc, _ = regrade_json(run_cli, artifacts(healthy) / "evaluator_rollouts.jsonl")
    assert code == 0 and doc["aggregate_agrees"] is True
    code, doc2, _ = regrade_json(run_cli, artifacts(healthy))
    assert code == 0 and doc2["pass_at_1"] == doc["pass_at_1"]


def test_reward_mismatch_fails_with_examples(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=30, seed=6, corrupt_rewards=3)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 1
    assert doc["reward_mismatches"] == 3 and len(doc["mismatch_examples"]) == 3
    lines = (artifacts(task) / "evaluator_rollouts.jsonl").read_text().splitlines()
    for ex in doc["mismatch_examples"]:
        stored = json.loads(lines[ex["line"] - 1])
        assert stored["reward"] == ex["stored_reward"] != ex["regraded_reward"]
        assert ex["stored_reward"] == pytest.approx(ex["regraded_reward"] + 0.01, abs=1e-6)
    # the aggregate was computed from the stored rewards, so it disagrees with the regrade
    assert doc["aggregate_agrees"] is False
    assert doc["stored_pass_at_1"] != doc["pass_at_1"]


def test_disagreeing_aggregate_fails(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=30, seed=6, aggregate_offset=0.01)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 1 and doc["reward_mismatches"] == 0 and doc["aggregate_agrees"] is False
    assert {d["key"] for d in doc["aggregate_diffs"]} >= {"pass@1/accuracy"}


def test_tiny_aggregate_difference_within_tolerance(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=30, seed=6, aggregate_offset=1e-9)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 0 and doc["aggregate_agrees"] is True


def test_missing_aggregate_is_null(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=12, seed=1, aggregate=False)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 0 and doc["aggregate_agrees"] is None


def test_truncated_last_line_fails_and_says_so(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=12, seed=1, truncate_last=True)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 1 and doc["truncated_lines"] == 1 and doc["rollouts"] == 11
    code, out, _ = run_cli("regrade", task)
    assert "truncated last line    yes" in out and "FAILED" in out


def test_rollouts_of_another_gym_task_are_refused(run_cli, tmp_path):
    # A GDPVal task has no expected_answer: grading it as MRCR would report a mismatch on
    # every line. It is bad input for regrade, said in one line.
    task = write_gdpval_run(tmp_path / "nemo_gym.1", n_items=8)
    before = (task / "artifacts/evaluator_rollouts.jsonl").read_bytes()
    code, out, err = run_cli("regrade", task)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "evaluator_rollouts.jsonl:1: not MRCR rollouts" in err and "evalkit score" in err
    assert (task / "artifacts/evaluator_rollouts.jsonl").read_bytes() == before


def test_duplicates(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path / "a", n_items=12, seed=1, duplicate=3)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 0 and doc["duplicates"] == 3 and doc["rollouts"] == 12
    assert doc["conflicting_duplicates"] == 0 and doc["aggregate_agrees"] is True
    task = write_mrcr_run(tmp_path / "b", n_items=12, seed=1, conflicting_duplicate=1)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 1 and doc["conflicting_duplicates"] == 1


def test_repeats_report_avg_of_k(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=15, seed=8, repeats=4)
    code, doc, _ = regrade_json(run_cli, task)
    assert code == 0 and doc["rollouts"] == 60 and doc["rollouts_per_task"] == 4
    assert doc["aggregate_agrees"] is True


def corrupt(task: Path, line_no: int, replace) -> Path:
    path = artifacts(task) / "evaluator_rollouts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[line_no - 1] = replace(lines[line_no - 1])
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        (lambda raw: raw[: len(raw) // 2] + b"\n", "malformed JSON"),
        (lambda raw: raw.replace(b"Prepend", b"Pr\xe9pend", 1), "not valid UTF-8"),
        (lambda raw: b"\x00\x00\x13\x37" * 50 + b"\n", "binary data"),
    ],
    ids=["malformed", "non-utf8", "binary"],
)
def test_bad_middle_line_exits_2_with_file_and_line(run_cli, tmp_path, replace, message):
    task = write_mrcr_run(tmp_path, n_items=10, seed=1)
    path = corrupt(task, 4, replace)
    code, out, err = run_cli("regrade", task, "--format", "json")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith(f"evalkit regrade: error: {path}:4: {message}")


def test_not_a_gym_run_and_several_gym_tasks(run_cli, tmp_path):
    (tmp_path / "x" / "t.0" / "artifacts").mkdir(parents=True)
    code, _, err = run_cli("regrade", tmp_path / "x")
    assert code == 2 and "no evaluator_rollouts.jsonl" in err
    task = write_mrcr_run(tmp_path / "y", n_items=6, seed=1)
    other = task.parent / "nemo_gym.1"
    other.mkdir()
    (other / "artifacts").mkdir()
    (other / "artifacts" / "evaluator_rollouts.jsonl").write_bytes(b"")
    code, _, err = run_cli("regrade", task.parent)
    assert code == 2 and "several Gym tasks (nemo_gym.0, nemo_gym.1)" in err


def test_bad_jobs_is_a_usage_error(run_cli, healthy):
    code, _, err = run_cli("regrade", healthy, "--jobs", "0")
    assert code == 2 and "--jobs" in err


def test_progress_goes_to_stderr(run_cli, healthy):
    code, out, err = run_cli("regrade", healthy, "--format", "json", "--progress", "--jobs", "2")
    assert code == 0 and json.loads(out)["rollouts"] == 36
    assert "regrade:" in err and "MB" in err


@pytest.mark.slow
@pytest.mark.entrypoint
def test_subprocess_with_a_pool_matches_in_process(run_cli, healthy):
    _code, doc, _ = regrade_json(run_cli, healthy)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "regrade",
            str(healthy),
            "--format",
            "json",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == doc


def test_progress_single_process(run_cli, healthy):
    code, _out, err = run_cli("regrade", healthy, "--format", "json", "--progress", "--jobs", "1")
    assert code == 0 and err.startswith("regrade: ") and "MB" in err


def test_no_progress_when_not_asked(run_cli, healthy):
    code, _out, err = run_cli("regrade", healthy, "--format", "json")
    assert code == 0 and err == ""
