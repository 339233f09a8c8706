"""Tau3-Banking runs as score and compare read them: a Gym task, 0/1 episodes, its
headline `mean/reward` of the Tau3 agent on 0-1.

The run directories are synthetic. The rollout lines keep the envelope of Gym's rollout
format (responses_create_params, response, reward, _ng_task_index, _ng_rollout_index,
agent_ref) with the agent name of NeMo Gym's
benchmarks/tau2/configs/banking_bm25_grep_artificial_analysis.yaml at e446e4f4; no recorded
Tau3 line was available, so the rest of a real line (Tau's `result`, token counts) is left
out. The aggregate file's shape is the one MRCR's reader takes (a list of agent_ref +
agent_metrics). The flattened results.yml key in the last test is a guess modelled on
GDPVal's (`<agent>/key_metrics/<metric>`), not read from a real Tau3 run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.benchmarks import adapter_for
from evalkit.benchmarks.tau3.facts import AGENT, SCORE_KEY
from evalkit.runs.run import load_runs

BANK_POLICY = "You are a bank's support agent. Follow the policy below."
TOKEN_RESULTS = (
    "results:\n  groups:\n    nemo_gym:\n      metrics:\n"
    "        key_metrics/mean/output_tokens:\n          scores:\n"
    "            key_metrics/mean/output_tokens:\n              value: 300.0\n"
)


def write_tau3_run(
    root: Path, rewards: list[list[int]], aggregate: float | None, invocation: str = "aa"
) -> Path:
    """A Tau3 task directory: rewards[task][repeat], one rollout line each."""
    art = root / f"20261130_120000-00000000000000{invocation}" / "nemo_gym.0" / "artifacts"
    art.mkdir(parents=True)
    lines = []
    for task, repeats in enumerate(rewards):
        for repeat, reward in enumerate(repeats):
            # As Gym's tau2 agent writes it back: the row's input (one system prompt for
            # every task) plus this episode's own turns, so no two rollouts share it.
            turns = [
                {"content": BANK_POLICY, "role": "system", "type": "message"},
                {"content": f"Hi, task {task} here ({invocation}/{repeat})", "role": "user",
                 "type": "message"},
            ]  # fmt: skip
            lines.append(
                {
                    "responses_create_params": {
                        "input": turns,
                        "temperature": 1.0,
                        "top_p": 0.95,
                    },
                    "response": {"output": [], "id": f"tau2-banking_knowledge-{task}"},
                    "reward": float(reward),
                    "_ng_task_index": task,
                    "_ng_rollout_index": repeat,
                    "agent_ref": {"type": "responses_api_agents", "name": AGENT},
                }
            )
    (art / "evaluator_rollouts.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (art / "results.yml").write_text(TOKEN_RESULTS)
    if aggregate is not None:
        (art / "evaluator_rollouts_aggregate_metrics.json").write_text(
            json.dumps(
                [{"agent_ref": {"name": AGENT}, "agent_metrics": {"mean/reward": aggregate}}]
            )
        )
    return art.parent


def _score(run_cli, task: Path) -> dict:
    code, out, err = run_cli("score", task, "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["tasks"]
    return row


def test_the_tau3_adapter_answers_for_a_tau3_run(tmp_path):
    task = write_tau3_run(tmp_path, [[1, 0, 1, 1, 0], [0, 0, 0, 1, 0]], 0.4)
    (run,) = load_runs(task)
    adapter = adapter_for(run)
    assert adapter.name == "tau3_banking" and adapter.kind == "gym"
    assert adapter.item_scale(run) == "0-1"


def test_score_is_gyms_mean_reward_on_0_1(tmp_path, run_cli):
    task = write_tau3_run(tmp_path, [[1, 0, 1, 1, 0], [0, 0, 0, 1, 0]], 0.4)
    row = _score(run_cli, task)
    assert row["benchmark"] == "tau3_banking" and row["scale"] == "0-1"
    assert row["metric"] == SCORE_KEY and row["value"] == pytest.approx(0.4)


def test_without_the_aggregate_the_rollouts_give_the_mean(tmp_path, run_cli):
    task = write_tau3_run(tmp_path, [[1, 1, 1, 1, 0], [0, 0, 0, 0, 0]], None)
    row = _score(run_cli, task)
    assert row["benchmark"] == "tau3_banking" and row["scale"] == "0-1"
    assert row["value"] == pytest.approx(0.4) and row["rollouts"] == 10


def test_results_yml_key_wins_when_present(tmp_path, run_cli):
    task = write_tau3_run(tmp_path, [[1, 0, 1, 1, 0]], 0.6)
    (task / "artifacts" / "results.yml").write_text(
        "results:\n  groups:\n    nemo_gym:\n      metrics:\n"
        f"        {AGENT}/key_metrics/mean/reward:\n          scores:\n"
        f"            {AGENT}/key_metrics/mean/reward:\n              value: 0.6\n"
    )
    row = _score(run_cli, task)
    assert row["benchmark"] == "tau3_banking" and row["scale"] == "0-1"
    assert row["value"] == pytest.approx(0.6) and row["metric"].endswith("mean/reward")


def test_compare_pairs_tau3_as_a_gym_task_on_0_1(tmp_path):
    from evalkit.comparison.suite import compare_paths

    base = write_tau3_run(tmp_path / "base", [[1, 0, 1, 1, 0], [0, 0, 0, 1, 0]], 0.4, "ba")
    cand = write_tau3_run(tmp_path / "cand", [[1, 1, 1, 1, 0], [0, 0, 0, 1, 0]], 0.5, "ca")
    doc = compare_paths(base.parent, cand.parent, bootstrap=200)
    (row,) = [r for r in doc["tasks"] if r["benchmark"] == "tau3_banking"]
    # Items are the dataset rows (five repeats each), paired by row although every
    # recorded prompt differs; 0-1 means shown as points.
    assert row["paired"] is True and row["n"] == 2
    assert (row["base"], row["cand"]) == (pytest.approx(40.0), pytest.approx(50.0))
    # Gym's tau2 agent gives every response of a task the same id on every run
    # (`tau2-<domain>-<task id>`): that alone is no evidence of reuse.
    assert not any("same response id" in r for r in row["reasons"])
