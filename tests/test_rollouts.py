"""Run layout, streaming rollouts, Gym aggregation and the aggregate file reader."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalkit.benchmarks.mrcr.aggregate import compare_metrics, read_aggregate_file, recompute
from evalkit.benchmarks.mrcr.grading import grade
from evalkit.benchmarks.mrcr.regrade import regrade_file
from evalkit.benchmarks.mrcr.variants import agent_of
from evalkit.errors import InputError
from evalkit.runs.layout import resolve_task_runs
from evalkit.runs.rollouts import ScanStats, iter_rollouts
from evalkit.runs.settings import read_run_settings
from helpers.rungen import gym_aggregate, make_items, write_mrcr_run


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    return write_mrcr_run(
        root,
        n_items=45,
        seed=3,
        leak_fraction=0.1,
        length_fraction=0.1,
        overflow_fraction=0.1,
        reasoning_only_fraction=0.1,
    )


def rollouts_file(task: Path) -> Path:
    return task / "artifacts" / "evaluator_rollouts.jsonl"


# ---- layout -----------------------------------------------------------------------


def test_resolve_invocation_task_artifacts_and_file(mixed_run):
    for path in (mixed_run.parent, mixed_run, mixed_run / "artifacts", rollouts_file(mixed_run)):
        [task] = resolve_task_runs(path)
        assert task.name == "nemo_gym.0" and task.task_dir == mixed_run
        assert task.rollouts_path == rollouts_file(mixed_run)
        assert task.logs_dir == mixed_run / "logs"
        assert task.is_gym
        assert task.config_path == mixed_run / "artifacts" / "run_config.yml"


def test_resolve_several_tasks_sorted(tmp_path):
    inv = tmp_path / "20261130_101500-0123456789abcdef"
    for name in ("nemo_gym.1", "lm-evaluation-harness.ifeval.0"):
        (inv / name / "artifacts").mkdir(parents=True)
    (inv / "unrelated").mkdir()
    tasks = resolve_task_runs(inv)
    assert [t.name for t in tasks] == ["lm-evaluation-harness.ifeval.0", "nemo_gym.1"]
    assert [t.is_gym for t in tasks] == [False, True]
    assert tasks[0].config_path is None and tasks[0].logs_dir is None


def test_resolve_nothing_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no task runs found"):
        resolve_task_runs(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        resolve_task_runs(tmp_path / "missing")


def test_config_path_preference(tmp_path):
    art = tmp_path / "t.0" / "artifacts"
    art.mkdir(parents=True)
    (art / "launcher_unresolved_config.yaml").write_text("a: 1\n")
    assert (
        resolve_task_runs(tmp_path / "t.0")[0].config_path.name == "launcher_unresolved_config.yaml"
    )
    (art / "run_config.yml").write_text("a: 1\n")
    assert resolve_task_runs(tmp_path / "t.0")[0].config_path.name == "run_config.yml"


def test_gym_settings_from_config(tmp_path):
    task = write_mrcr_run(
        tmp_path, n_items=6, variant="config_n3_128k.yaml", limit=4, gym_commit="04cf541" + "0" * 33
    )
    settings = read_run_settings(resolve_task_runs(task)[0])
    assert settings.variant == "config_n3_128k.yaml"
    assert agent_of(settings) == "mrcr_n3_128k_benchmark_simple_agent"
    assert settings.limit == 4 and settings.num_repeats == 1
    assert settings.gym_commit == "04cf541" + "0" * 33


# ---- streaming --------------------------------------------------------------------


def test_iter_rollouts_fields(mixed_run):
    stats = ScanStats()
    rows = list(iter_rollouts(rollouts_file(mixed_run), stats))
    assert stats.records == stats.lines == len(rows) == 45 and not stats.truncated_last_line
    assert sorted(r.task_index for r in rows) == list(range(45))
    assert [r.line for r in rows] == list(range(1, 46))
    assert {r.agent for r in rows} == {"mrcr_n3_1m_benchmark_simple_agent"}
    for r in rows:
        assert grade(r.response_text, r.expected_answer, r.random_string_to_prepend) == (
            r.reward,
            r.prefix_matched,
        )
        assert r.key == (r.random_string_to_prepend, r.n_needles, r.expected_answer)
    no_message = [r for r in rows if r.response_text is None]
    assert no_message and all(r.has_reasoning_item and r.reward == 0.0 for r in no_message)
    overflow = [r for r in rows if r.usage_missing]
    assert overflow and all(r.input_tokens is None and r.response_text == "" for r in overflow)
    capped = [r for r in rows if r.incomplete_reason == "max_output_tokens"]
    assert len(capped) > len(overflow)
    normal = [r for r in rows if not r.usage_missing]
    assert all(r.input_tokens > r.n_tokens and r.output_tokens > 0 for r in normal)


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


@pytest.fixture
def good_lines(mixed_run) -> list[bytes]:
    return rollouts_file(mixed_run).read_bytes().splitlines(keepends=True)[:6]


def test_truncated_last_line_is_counted_not_raised(tmp_path, good_lines):
    path = write_lines(tmp_path / "r.jsonl", [*good_lines[:5], good_lines[5][:400]])
    stats = ScanStats()
    assert len(list(iter_rollouts(path, stats))) == 5
    assert stats.truncated_last_line and stats.lines == 6


def test_malformed_middle_line_names_file_and_line(tmp_path, good_lines):
    path = write_lines(
        tmp_path / "r.jsonl", [*good_lines[:3], good_lines[3][:400] + b"\n", *good_lines[4:]]
    )
    with pytest.raises(InputError) as err:
        list(iter_rollouts(path))
    assert err.value.line == 4 and err.value.path == str(path)
    assert "malformed JSON" in str(err.value)


def test_malformed_last_line_with_newline_is_an_error(tmp_path, good_lines):
    path = write_lines(tmp_path / "r.jsonl", [*good_lines[:2], b'{"reward": \n'])
    with pytest.raises(InputError, match=r"r.jsonl:3: malformed JSON"):
        list(iter_rollouts(path))


def test_non_utf8_and_binary_lines(tmp_path, good_lines):
    bad = good_lines[1].replace(b"Prepend", b"Pr\xffpend", 1)
    path = write_lines(tmp_path / "r.jsonl", [good_lines[0], bad, *good_lines[2:]])
    with pytest.raises(InputError, match=r"r.jsonl:2: not valid UTF-8"):
        list(iter_rollouts(path))
    path = write_lines(tmp_path / "b.jsonl", [b"\x00\x01\x02binary\n", b"\x7fELF\x00\n"])
    with pytest.raises(InputError, match=r"b.jsonl:1: binary data"):
        list(iter_rollouts(path))


def test_wrong_field_type_is_an_error(tmp_path, good_lines):
    doc = json.loads(good_lines[0])
    doc["reward"] = "high"
    path = write_lines(tmp_path / "r.jsonl", [json.dumps(doc).encode() + b"\n"])
    with pytest.raises(InputError, match=r"r.jsonl:1: unexpected field type"):
        list(iter_rollouts(path))


def test_blank_lines_are_skipped_and_counted(tmp_path, good_lines):
    path = write_lines(tmp_path / "r.jsonl", [good_lines[0], b"\n", b"  \r\n", good_lines[1]])
    stats = ScanStats()
    rows = list(iter_rollouts(path, stats))
    assert [r.line for r in rows] == [1, 4] and stats.blank_lines == 2


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(iter_rollouts(tmp_path / "none.jsonl"))
    with pytest.raises(InputError, match="is a directory"):
        list(iter_rollouts(tmp_path))


# ---- aggregation --------------------------------------------------------------------


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("repeats", [1, 3])
def test_recompute_matches_the_gym_aggregate_file(tmp_path, repeats):
    task = write_mrcr_run(
        tmp_path, n_items=30, seed=5, repeats=repeats, skill=0.6, leak_fraction=0.1
    )
    agg = recompute(iter_rollouts(rollouts_file(task)))
    metrics = read_aggregate_file(task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json")
    assert agg.rollouts == 30 * repeats and agg.tasks == 30
    assert agg.max_rollouts_per_task == repeats
    assert close(agg.pass_at_1, metrics["pass@1/accuracy"])
    assert close(agg.pass_at_1_avg_of_k, metrics[f"pass@1[avg-of-{repeats}]/accuracy"])
    for n in ("2", "4", "8"):
        assert close(agg.strata[n], metrics[f"n_needles={n}/pass@1/accuracy"])
    assert close(agg.prefix_matched, metrics["mean/prefix_matched"])
    assert close(agg.mean_reward, metrics["mean/reward"])
    assert compare_metrics(agg.gym_metrics(), metrics) == []
    assert len(agg.per_item) == 30


def rec(task, rollout, reward, needles=2, matched=True, answer="a"):
    return SimpleNamespace(
        task_index=task,
        rollout_index=rollout,
        reward=reward,
        prefix_matched=matched,
        n_needles=needles,
        random_string_to_prepend=f"p{task}",
        expected_answer=answer,
    )


def test_pass_at_1_binary_uses_all_rollouts_continuous_uses_rollout_0():
    rows = [
        rec(0, 1, 0.0),
        rec(0, 0, 1.0),  # binary task: mean of both = 0.5
        rec(1, 1, 0.9, 4),
        rec(1, 0, 0.5, 4),
    ]  # continuous: rollout 0 only = 0.5
    agg = recompute(rows)
    assert agg.pass_at_1 == pytest.approx(50.0)
    assert agg.pass_at_1_avg_of_k == pytest.approx(100 * (0.5 + 0.7) / 2)
    assert agg.strata == {"2": pytest.approx(50.0), "4": pytest.approx(50.0)}
    assert agg.strata_avg_of_k["4"] == pytest.approx(70.0)
    assert agg.mean_reward == pytest.approx(0.6)
    assert [(i.task_index, i.reward) for i in agg.per_item] == [(0, 0.5), (1, pytest.approx(0.7))]
    assert agg.gym_metrics()["pass@1[avg-of-2]/accuracy"] == pytest.approx(60.0)


def test_duplicates_kept_once_and_conflicts_counted():
    rows = [rec(0, 0, 0.25), rec(0, 0, 0.25), rec(1, 0, 1.0), rec(1, 0, 0.0), rec(2, 0, 0.5)]
    agg = recompute(rows)
    assert (agg.rollouts, agg.duplicates, agg.conflicting_duplicates) == (3, 2, 1)
    assert agg.pass_at_1 == pytest.approx(100 * (0.25 + 1.0 + 0.5) / 3)


def test_recompute_of_nothing():
    agg = recompute([])
    assert agg.rollouts == 0 and agg.pass_at_1 is None and agg.strata == {}


def test_gym_aggregate_closed_form():
    records = [
        {
            "reward": r,
            "n_needles": n,
            "n_tokens": 10,
            "prefix_matched": r > 0,
            "seq_match_ratio": r,
            "_ng_task_index": i,
            "_ng_rollout_index": 0,
            "response": {"usage": None},
        }
        for i, (r, n) in enumerate([(1.0, 2), (0.0, 2), (0.5, 4), (0.25, 8)])
    ]
    metrics = gym_aggregate(records, "mrcr_benchmark_simple_agent")[0]["agent_metrics"]
    assert metrics["pass@1/accuracy"] == pytest.approx(43.75)
    assert metrics["n_needles=2/pass@1/accuracy"] == pytest.approx(50.0)
    assert metrics["mean/prefix_matched"] == pytest.approx(0.75)


# ---- aggregate file ---------------------------------------------------------------


def write_agg(path: Path, names: list[str]) -> Path:
    path.write_text(
        json.dumps(
            [
                {
                    "agent_ref": {"name": n},
                    "agent_metrics": {"pass@1/accuracy": i},
                    "group_level_metrics": [],
                }
                for i, n in enumerate(names)
            ],
            indent=2,
        )
    )
    return path


def test_read_aggregate_file_selects_by_agent(tmp_path):
    path = write_agg(
        tmp_path / "a.json",
        ["mrcr_n3_1m_benchmark_simple_agent", "mrcr_n3_128k_benchmark_simple_agent", "other_agent"],
    )
    assert read_aggregate_file(path, "mrcr_n3_128k_benchmark_simple_agent") == {
        "pass@1/accuracy": 1
    }
    with pytest.raises(InputError, match="several MRCR entries .*1m.*128k"):
        read_aggregate_file(path)
    with pytest.raises(InputError, match="no entry for agent 'nope'"):
        read_aggregate_file(path, "nope")
    only = write_agg(tmp_path / "b.json", ["other_agent", "mrcr_benchmark_simple_agent"])
    assert read_aggregate_file(only) == {"pass@1/accuracy": 1}


def test_read_aggregate_file_bad_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[\n  {"agent_ref": {"name": "x"},\n   "agent_metrics": {,}}\n]\n')
    with pytest.raises(InputError, match=r"bad.json:3: malformed JSON"):
        read_aggregate_file(bad)
    bad.write_text('{"agent_ref": 1}')
    with pytest.raises(InputError, match="unexpected aggregate metrics shape"):
        read_aggregate_file(bad)


def test_compare_metrics_tolerance():
    ours = {
        "pass@1/accuracy": 26.91,
        "n_needles=2/pass@1/accuracy": 36.81,
        "pass@1[avg-of-1]/accuracy": 26.91,
        "mean/reward": 0.2691,
    }
    theirs = {
        "pass@1/accuracy": 26.91 * (1 + 1e-9),
        "n_needles=2/pass@1/accuracy": 36.81,
        "n_needles=8/pass@1/accuracy": 16.74,
    }
    assert [d["key"] for d in compare_metrics(ours, theirs)] == ["n_needles=8/pass@1/accuracy"]
    theirs["pass@1/accuracy"] = 26.91 * (1 + 1e-5)
    del theirs["n_needles=8/pass@1/accuracy"]
    assert [d["key"] for d in compare_metrics(ours, theirs)] == ["pass@1/accuracy"]


# ---- sharded regrade equals one pass ---------------------------------------------------


def test_sharded_regrade_equals_single_pass(tmp_path, monkeypatch):
    import evalkit.benchmarks.mrcr.regrade as regrade

    monkeypatch.setattr(regrade, "usable_cores", lambda: 3)  # three shards on any machine
    task = write_mrcr_run(
        tmp_path, n_items=40, seed=9, corrupt_rewards=4, duplicate=2, leak_fraction=0.1
    )
    one = regrade_file(rollouts_file(task), jobs=1)
    many = regrade_file(rollouts_file(task), jobs=3)
    assert many.jobs == 3
    assert one.reward_mismatches == many.reward_mismatches == 4
    assert one.mismatch_examples == many.mismatch_examples
    assert one.stats.lines == many.stats.lines == 42
    assert one.aggregate.pass_at_1 == many.aggregate.pass_at_1
    assert one.aggregate.duplicates == many.aggregate.duplicates == 2
    assert one.flags == many.flags and one.flags["reasoning_leak"] > 0
    lines = rollouts_file(task).read_bytes().splitlines()
    for ex in many.mismatch_examples:
        assert json.loads(lines[ex["line"] - 1])["reward"] == ex["stored_reward"]


def test_sharded_error_line_is_global(tmp_path):
    task = write_mrcr_run(tmp_path, n_items=30, seed=2)
    path = rollouts_file(task)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[26] = b'{"reward": oops}\n'
    path.write_bytes(b"".join(lines))
    for jobs in (1, 4):
        with pytest.raises(InputError) as err:
            regrade_file(path, jobs=jobs)
        assert err.value.line == 27


def test_items_can_be_shared_between_runs(tmp_path):
    items = make_items(12, seed=1)
    a = write_mrcr_run(tmp_path / "a", items=items, seed=1, skill=0.9)
    b = write_mrcr_run(tmp_path / "b", items=items, seed=2, skill=[0.1] * 12)
    keys_a = {r.key for r in iter_rollouts(rollouts_file(a))}
    keys_b = {r.key for r in iter_rollouts(rollouts_file(b))}
    assert keys_a == keys_b and len(keys_a) == 12
