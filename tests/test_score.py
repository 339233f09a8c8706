"""`evalkit score`: MRCR from the aggregate file by agent name; other tasks from results.yml."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.rungen import CANARY, write_canary, write_mrcr_run

REPO = Path(__file__).resolve().parent.parent
CANARY_DIR = REPO / "tests" / "data" / "runs" / "mrcr-canary"


def score_json(run_cli, path):
    code, out, err = run_cli("score", path, "--format", "json")
    return code, (json.loads(out) if out else None), err


def aggregate_metrics(task: Path) -> dict:
    path = task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json"
    return json.loads(path.read_text())[0]["agent_metrics"]


def test_canary_scores_and_matches_its_aggregate(run_cli):
    code, doc, err = score_json(run_cli, CANARY_DIR)
    assert code == 0, err
    [task] = doc["tasks"]
    metrics = aggregate_metrics(CANARY_DIR / "nemo_gym.0")
    assert task["benchmark"] == "mrcr" and task["task"] == "nemo_gym.0"
    assert task["agent"] == "mrcr_n3_1m_benchmark_simple_agent"
    assert task["pass_at_1"] == metrics["pass@1/accuracy"]
    assert task["strata"] == {n: metrics[f"n_needles={n}/pass@1/accuracy"] for n in "248"}
    assert task["prefix_matched"] == metrics["mean/prefix_matched"]
    assert task["rollouts"] == CANARY["limit"]


def test_canary_agrees_with_regrade(run_cli):
    _code, doc, _ = score_json(run_cli, CANARY_DIR)
    code, out, _ = run_cli("regrade", CANARY_DIR, "--format", "json")
    regraded = json.loads(out)
    assert code == 0 and regraded["aggregate_agrees"] is True
    assert regraded["pass_at_1"] == pytest.approx(doc["tasks"][0]["pass_at_1"], rel=1e-9)


def test_canary_is_what_the_generator_writes(tmp_path):
    """The committed sample equals a fresh `python tests/helpers/rungen.py canary DEST`."""
    fresh = write_canary(tmp_path / "canary")
    committed = sorted(p.relative_to(CANARY_DIR) for p in CANARY_DIR.rglob("*") if p.is_file())
    assert committed == sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file())
    for rel in committed:
        assert (CANARY_DIR / rel).read_bytes() == (fresh / rel).read_bytes(), rel
    assert sum((CANARY_DIR / rel).stat().st_size for rel in committed) < 300_000


@pytest.mark.slow
@pytest.mark.entrypoint
def test_quick_start_script_exits_0_and_prints_the_score():
    script = REPO / "scripts" / "evalkit"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "evalkit"]
    proc = subprocess.run(
        [*cmd, "score", "tests/data/runs/mrcr-canary"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    value = aggregate_metrics(CANARY_DIR / "nemo_gym.0")["pass@1/accuracy"]
    assert f"{value:.2f}" in proc.stdout and "8 needles" in proc.stdout


def test_text_output(run_cli):
    code, out, _ = run_cli("score", CANARY_DIR / "nemo_gym.0")
    assert code == 0
    assert out.splitlines()[0].split() == [
        "task",
        "benchmark",
        "metric",
        "value",
        "scale",
        "stderr",
        "rollouts",
    ]
    assert "mrcr_n3_1m_benchmark_simple_agent" in out and "prefix_matched" in out


def test_never_reads_mrcr_from_results_yml(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1)
    (task / "artifacts" / "results.yml").write_text(
        "results:\n  groups:\n    nemo_gym:\n      metrics:\n        pass@1/accuracy:\n"
        "          scores:\n            pass@1/accuracy:\n              value: 99.0\n"
    )
    code, doc, _ = score_json(run_cli, task)
    assert code == 0
    assert doc["tasks"][0]["pass_at_1"] == aggregate_metrics(task)["pass@1/accuracy"] != 99.0


def add_entry(task: Path, agent: str, value: float) -> None:
    path = task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json"
    entries = json.loads(path.read_text())
    entries.insert(
        0,
        {
            "agent_ref": {"name": agent},
            "agent_metrics": {"pass@1/accuracy": value},
            "group_level_metrics": [],
        },
    )
    path.write_text(json.dumps(entries))


def test_entry_matched_by_the_variants_agent_not_the_first(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1, variant="config_n3_128k.yaml")
    expected = aggregate_metrics(task)["pass@1/accuracy"]
    add_entry(task, "mrcr_n3_1m_benchmark_simple_agent", 77.0)  # now the first entry
    code, doc, _ = score_json(run_cli, task)
    assert code == 0
    assert doc["tasks"][0]["agent"] == "mrcr_n3_128k_benchmark_simple_agent"
    assert doc["tasks"][0]["pass_at_1"] == expected != 77.0


def test_without_config_several_mrcr_entries_is_an_error(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1)
    (task / "artifacts" / "run_config.yml").unlink()
    (task / "run.sub").unlink()  # it embeds config_ef.yaml, as the launcher's does
    code, doc, _ = score_json(run_cli, task)
    assert code == 0 and doc["tasks"][0]["agent"] == "mrcr_n3_1m_benchmark_simple_agent"
    add_entry(task, "mrcr_benchmark_simple_agent", 5.0)
    code, out, err = run_cli("score", task)
    assert code == 2 and out == ""
    assert (
        "several MRCR entries (mrcr_benchmark_simple_agent, mrcr_n3_1m_benchmark_simple_agent)"
        in err
    )


def test_mrcr_without_aggregate_file(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1, aggregate=False)
    code, _, err = run_cli("score", task)
    assert code == 2 and "no aggregate metrics file" in err and "regrade" in err


def write_results(task_dir: Path, body: str) -> Path:
    (task_dir / "artifacts").mkdir(parents=True)
    (task_dir / "artifacts" / "results.yml").write_text(body)
    return task_dir


def results_yaml(task: str, scores: dict[str, tuple[float, float | None]]) -> str:
    lines = ["results:", "  tasks:", f"    {task}:", "      metrics:"]
    by_metric: dict[str, list[tuple[str, float, float | None]]] = {}
    for name, (value, stderr) in scores.items():
        metric, score = name.split("|")
        by_metric.setdefault(metric, []).append((score, value, stderr))
    for metric, entries in by_metric.items():
        lines += [f"        {metric}:", "          scores:"]
        for score, value, stderr in entries:
            lines += [f"            {score}:", f"              value: {value}"]
            if stderr is not None:
                lines += ["              stats:", f"                stderr: {stderr}"]
    return "\n".join(lines) + "\n"


def test_other_tasks_documented_keys_and_scales(run_cli, tmp_path):
    inv = tmp_path / "20261130_101500-0123456789abcdef"
    write_results(
        inv / "ns_gpqa.0",
        results_yaml(
            "gpqa",
            {
                "pass_at_1_avg-of-4|symbolic_correct": (70.1, 1.2),
                "pass_at_1_avg-of-8|symbolic_correct": (71.5, 0.9),
                "pass_at_1_avg-of-8|no_answer": (2.0, None),
            },
        ),
    )
    write_results(
        inv / "tau2.1", results_yaml("tau2_bench_telecom", {"pass_at_1|pass_at_1": (0.42, None)})
    )
    write_results(
        inv / "omni.2",
        results_yaml(
            "omniscience",
            {
                "pass_at_1_avg-of-2|judge_omni_index": (-12.5, None),
                "pass_at_1_avg-of-2|judge_correct": (30.0, None),
            },
        ),
    )
    write_results(inv / "custom.3", results_yaml("mytask", {"acc|acc": (0.5, None)}))
    code, doc, err = score_json(run_cli, inv)
    assert code == 0, err
    by = {t["task"]: t for t in doc["tasks"]}
    # Every task names the adapter that read it; the run's record is its fingerprint.
    assert by["ns_gpqa.0"].pop("adapter") == "results_yml"
    assert by["ns_gpqa.0"].pop("item_scale") is None
    by["ns_gpqa.0"].pop("fingerprint", None)
    assert by["ns_gpqa.0"].pop("dataset") is None  # results.yml only: no items
    assert by["ns_gpqa.0"] == {
        "task": "ns_gpqa.0",
        "benchmark": "gpqa",
        "metric": "gpqa_pass_at_1_avg-of-8_symbolic_correct",
        "value": 71.5,
        "scale": "0-100",
        "stderr": 0.9,
    }
    assert (by["tau2.1"]["metric"], by["tau2.1"]["scale"]) == (
        "tau2_bench_telecom_pass_at_1",
        "0-1",
    )
    assert (by["omni.2"]["value"], by["omni.2"]["scale"]) == (-12.5, "-100..100")
    assert (by["custom.3"]["metric"], by["custom.3"]["scale"]) == ("mytask_acc", "unknown")


def test_mixed_invocation_and_a_task_without_a_score(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1)
    write_results(
        task.parent / "mystery.1", results_yaml("x", {"a|a": (1.0, None), "b|b": (2.0, None)})
    )
    code, doc, _ = score_json(run_cli, task.parent)
    assert code == 1
    assert [t["task"] for t in doc["tasks"]] == ["mystery.1", "nemo_gym.0"]
    assert doc["tasks"][0]["value"] is None and doc["tasks"][0]["available"] == ["x_a", "x_b"]
    code, out, _ = run_cli("score", task.parent)
    assert code == 1 and "no documented headline key" in out


def test_nested_groups_are_flattened(run_cli, tmp_path):
    body = (
        "results:\n  groups:\n    nemo_gym:\n      groups:\n        sub:\n"
        "          metrics:\n            gdpval_stirrup_agent/comparison/normalized_elo:\n"
        "              scores:\n"
        "                gdpval_stirrup_agent/comparison/normalized_elo:\n"
        "                  value: 0.61\n"
    )
    write_results(tmp_path / "gdp.0", body)
    code, doc, _ = score_json(run_cli, tmp_path / "gdp.0")
    assert code == 0
    assert doc["tasks"][0]["benchmark"] == "gdpval" and doc["tasks"][0]["value"] == 0.61
    assert (
        doc["tasks"][0]["metric"] == "nemo_gym_sub_gdpval_stirrup_agent/comparison/normalized_elo"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [("results:\n  tasks: [\n", "malformed YAML"), ("- 1\n- 2\n", "must be a mapping")],
)
def test_bad_results_yml(run_cli, tmp_path, body, message):
    write_results(tmp_path / "t.0", body)
    code, out, err = run_cli("score", tmp_path / "t.0")
    assert code == 2 and out == "" and message in err and "results.yml" in err


def test_malformed_aggregate_file(run_cli, tmp_path):
    task = write_mrcr_run(tmp_path, n_items=9, seed=1)
    path = task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json"
    path.write_text(path.read_text()[:500])
    code, _, err = run_cli("score", task)
    assert code == 2 and f"{path}:" in err and "malformed JSON" in err


def test_missing_path(run_cli, tmp_path):
    code, _, err = run_cli("score", tmp_path / "nope")
    assert code == 2 and "no such file" in err


def test_copy_of_canary_artifacts_only(run_cli, tmp_path):
    dest = tmp_path / "evaluation-results" / "0123456789abcdef.0"
    shutil.copytree(CANARY_DIR / "nemo_gym.0" / "artifacts", dest)
    code, doc, _ = score_json(run_cli, dest)
    assert code == 0 and doc["tasks"][0]["benchmark"] == "mrcr"


def test_gdpval_rubric_mode_scores_the_mean_reward(tmp_path, run_cli):
    """Rubric-mode GDPVal has no headline key in results.yml: the score is the mean reward."""
    art = tmp_path / "20261130_120000-00000000000000aa" / "nemo_gym.0" / "artifacts"
    art.mkdir(parents=True)
    (art / "results.yml").write_text(
        "results:\n  groups:\n    nemo_gym:\n      metrics:\n"
        "        key_metrics/mean/input_tokens:\n          scores:\n"
        "            key_metrics/mean/input_tokens:\n              value: 1200.0\n"
        "        key_metrics/mean/output_tokens:\n          scores:\n"
        "            key_metrics/mean/output_tokens:\n              value: 300.0\n"
    )
    rewards = [0.0, 0.25, 0.5, 1.0]
    lines = [
        json.dumps(
            {
                "response": {"output": []},
                "reward": r,
                "_ng_task_index": i,
                "_ng_rollout_index": 0,
                "agent_ref": {"name": "gdpval_stirrup_agent"},
            }
        )
        for i, r in enumerate(rewards)
    ]
    (art / "evaluator_rollouts.jsonl").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli("score", art.parent, "--format", "json")
    assert code == 0, err
    (task,) = json.loads(out)["tasks"]
    assert task["benchmark"] == "gdpval" and task["scale"] == "0-1"
    assert task["value"] == pytest.approx(0.4375)
    # sd (ddof=1) of the rewards over sqrt(4)
    assert task["stderr"] == pytest.approx(0.4269563917 / 2)
