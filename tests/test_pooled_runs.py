"""Several independent runs of one task per side (issue 49): SciCode's eight-run rule.

The runs are results.yml-only tasks in the layout nemo-evaluator writes (helpers'
write_results_task), one invocation each, as `nel run -t ns_scicode` submits them; the
score key is the upstream skill's SciCode key (`scicode_pass_at_1_avg-of-1_subtask_accuracy`,
0-100, ../shared/facts/upstream-evaluation-skill.md)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.rungen import write_results_task

KEY = ("scicode_pass_at_1_avg-of-1", "subtask_accuracy")
# What these results.yml-only runs cannot record (no response record, no config): the
# rows are unverified unless the test accepts the gaps, which this file is not about.
ACCEPT = [
    a
    for gap in (
        "response-reuse",
        "sampling-temperature",
        "sampling-top_p",
        "checkpoint",
        "harness-version",
        "images",
        "reasoning_traces",
        "max_new_tokens",
        "chat_template_kwargs",
        "system_prompt",
        "repeats",
        "limit_samples",
    )
    for a in ("--accept", gap)
]


def _side(root: Path, scores: list[float]) -> Path:
    salt = 0xB000 if root.name == "base" else 0xC000  # each run its own invocation id
    for n, score in enumerate(scores):
        invocation = root / f"20261201_1{n:02d}000-{salt + n:016x}"
        write_results_task(invocation, "ns_scicode", score, 1.0, KEY)
    return root


def _compare(run_cli, base: Path, cand: Path) -> tuple[int, dict]:
    code, out, err = run_cli("compare", base, cand, "--format", "json", "--margin", "3", *ACCEPT)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_three_runs_a_side_are_pooled_and_get_no_pass(run_cli, tmp_path):
    base = _side(tmp_path / "base", [30.1, 29.4, 30.6])
    cand = _side(tmp_path / "cand", [30.0, 29.9, 30.3])
    code, doc = _compare(run_cli, base, cand)
    [row] = doc["tasks"]
    assert row["benchmark"] == "scicode" and row["runs"]["base"]["valid"] == 3
    assert row["runs"]["base"]["mean"] == (30.1 + 29.4 + 30.6) / 3
    assert row["verdict"] == "inconclusive" and doc["gate"] == "inconclusive" and code == 1
    assert "at least 8 valid independent runs" in row["reasons"][0]
    assert row["runs_needed"] == {"base": 5, "cand": 5}
    code, text, _ = run_cli("compare", base, cand, "--margin", "3", *ACCEPT)
    nexts = text.split("\nnext:\n", 1)[1]
    assert (
        "5 more independent runs" in nexts and "nel run --config CONFIG.yaml -t ns_scicode" in nexts
    )
    assert "or with more repeats" not in nexts  # the advice for tasks that take repeats


def test_eight_runs_a_side_are_compared_on_their_means(run_cli, tmp_path):
    base_scores = [30.1, 29.4, 30.6, 30.0, 29.8, 30.4, 29.7, 30.2]
    cand_scores = [s - 0.2 for s in base_scores]
    code, doc = _compare(
        run_cli, _side(tmp_path / "base", base_scores), _side(tmp_path / "cand", cand_scores)
    )
    [row] = doc["tasks"]
    assert abs(row["delta"] - (-0.2)) < 1e-9
    # Welch: equal spreads and counts give df = 2 (k - 1) = 14; SE = sqrt(2) x sd / sqrt(8)
    assert row["ci95"][0] > -3 and row["verdict"] == "no_regression" and code == 0


def test_runs_that_replay_one_another_are_not_independent(run_cli, tmp_path):
    """Two of the candidate's runs hold the same adapter response cache (a replay off a
    warm cache): the same response ids on both, so they are one measurement."""
    import shutil
    import sqlite3

    base = _side(tmp_path / "base", [30.0] * 8)
    cand = _side(tmp_path / "cand", [30.0] * 8)
    first, second = sorted(cand.glob("*/ns_scicode.0"))[:2]
    cache = first / "artifacts" / "cache" / "responses"
    cache.mkdir(parents=True)
    with sqlite3.connect(
        cache / "cache.db"
    ) as con:  # diskcache's Cache table, as the adapter writes it
        con.execute("CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key TEXT, value BLOB)")
        body = {"id": "chatcmpl-1", "choices": [{"message": {"content": "x" * 300}}]}
        con.execute("INSERT INTO Cache (key, value) VALUES ('k1', ?)", (json.dumps(body).encode(),))
    shutil.copytree(cache, second / "artifacts" / "cache" / "responses")
    code, doc = _compare(run_cli, base, cand)
    [row] = doc["tasks"]
    assert row["verdict"] == "not_comparable" and code == 1
    assert "replay one another" in row["reasons"][0]


def test_a_rerun_of_a_task_without_a_runs_rule_on_one_side_is_refused(run_cli, tmp_path):
    """Two invocations of GPQA on the baseline (a rerun beside the first) and one on the
    candidate: not a pooled design; the user passes one invocation per side."""
    base = _side(tmp_path / "base", [])
    cand = _side(tmp_path / "cand", [])
    key = ("gpqa_pass_at_1", "symbolic_correct")
    for n, root in enumerate((base, base, cand)):
        write_results_task(
            root / f"20261201_10{n}000-{0xA0 + n:016x}", "gpqa_diamond", 70.0, 1.0, key
        )
    code, _, err = run_cli("compare", base, cand)
    assert code == 2 and "gpqa is there 2 times on one side and 1 on the other" in err
