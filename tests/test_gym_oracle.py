"""NeMo Gym's own data and code as the oracle for evalkit's MRCR grading and aggregation.

The `nemo-gym` source distribution in the package index carries the MRCR resources server
(`resources_servers/mrcr/app.py`), its example rollouts and the metric code
(`nemo_gym/reward_profile.py`). The test downloads it once (`pip download nemo-gym==0.7.0
--no-deps --no-binary :all:`; `--ignore-requires-python` because 0.7.0 declares Python >=
3.13.14 while the suite runs on 3.11) into ~/.cache/evalkit-tests/oracles, or into
$EVALKIT_GYM_SDIST_DIR. Only module sources are loaded, by path: the packages they import
for other functions (pandas, scipy, wandb, orjson, Gym's server, CLI and config modules) are
replaced by empty stand-ins, and nothing from the sdist is installed.

Version difference from the MRCR pin a431501aa294f3237d472aaf58dd1e5026156ea8 (the golden
run's Gym), read from the Gym repository at that commit:
- resources_servers/mrcr/app.py: identical but for `ray_enabled = False` in 0.7.0;
- resources_servers/mrcr/data/example_rollouts.jsonl: identical bytes;
- reward_profile.compute_pass_majority_metrics: identical arithmetic (0.7.0 builds the
  `/std_dev_across_runs` key suffixes from an enum, same strings);
- reward_profile.compute_subset_metrics: the pin takes a task's `n_needles` from rollout
  0, 0.7.0 from the first rollout that has one. Every MRCR rollout carries it, so both
  group alike here.
"""

from __future__ import annotations

import json
import sys
import tarfile
import types
from pathlib import Path

import pytest

from helpers.oracle import cache_dir, load_module, pip_download, stand_ins

GYM_VERSION = "0.7.0"
SDIST = f"nemo_gym-{GYM_VERSION}.tar.gz"
ROOT = f"nemo_gym-{GYM_VERSION}"
MEMBERS = {
    "app": f"{ROOT}/resources_servers/mrcr/app.py",
    "examples": f"{ROOT}/resources_servers/mrcr/data/example_rollouts.jsonl",
    "reward_profile": f"{ROOT}/nemo_gym/reward_profile.py",
    "metrics_config": f"{ROOT}/nemo_gym/metrics_config.py",
}

pytestmark = [pytest.mark.slow, pytest.mark.network]


@pytest.fixture(scope="session")
def gym_files(tmp_path_factory) -> dict[str, Path]:
    """The few files of the sdist the tests read, extracted into a temporary directory."""
    sdist = pip_download(
        f"nemo-gym=={GYM_VERSION}",
        cache_dir("EVALKIT_GYM_SDIST_DIR"),
        SDIST,
        "--no-binary",
        ":all:",
        "--ignore-requires-python",
        timeout=900,
    )
    out = tmp_path_factory.mktemp("nemo-gym")
    found: dict[str, Path] = {}
    with tarfile.open(sdist) as tar:
        for key, name in MEMBERS.items():
            data = tar.extractfile(name)
            assert data is not None, f"{name} missing from {SDIST}"
            path = out / Path(name).name
            path.write_bytes(data.read())
            found[key] = path
    return found


STAND_INS = (
    "orjson",
    "pandas",
    "pandas.core",
    "pandas.core.groupby",
    "pandas.core.groupby.generic",
    "scipy",
    "wandb",
    "nemo_gym",
    "nemo_gym.config_types",
    "nemo_gym.global_config",
    "nemo_gym.base_resources_server",
    "nemo_gym.cli",
    "nemo_gym.cli._compat",
)


@pytest.fixture(scope="session")
def gym(gym_files) -> types.SimpleNamespace:
    """Gym's MRCR server module and reward_profile, loaded from source with stand-ins.

    sys.modules is restored afterwards; the loaded functions keep their own globals."""
    if sys.version_info < (3, 11):
        pytest.skip("Gym's metrics_config uses enum.StrEnum (Python 3.11+)")
    restore = ("nemo_gym.metrics_config", "nemo_gym.reward_profile", "gym_mrcr_app")
    with stand_ins(STAND_INS, restore):
        load_module("nemo_gym.metrics_config", gym_files["metrics_config"])
        reward_profile = load_module("nemo_gym.reward_profile", gym_files["reward_profile"])
        app = load_module("gym_mrcr_app", gym_files["app"])
    return types.SimpleNamespace(app=app, reward_profile=reward_profile)


def gym_metrics(gym, records: list[dict]) -> dict:
    """MRCRResourcesServer.compute_metrics on records grouped the way Gym's aggregator
    hands them over: one list per _ng_task_index, ordered by _ng_rollout_index."""
    by_task: dict[int, list[dict]] = {}
    for rec in sorted(records, key=lambda r: (r["_ng_task_index"], r["_ng_rollout_index"])):
        by_task.setdefault(rec["_ng_task_index"], []).append(rec)
    server = gym.app.MRCRResourcesServer
    return server.compute_metrics(server, list(by_task.values()))  # self only reads _score_fn


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# ------------------------------------------------------------------------- grading


def test_regrade_reproduces_every_stored_reward_of_gyms_examples(gym_files, run_cli):
    examples = gym_files["examples"]
    records = read_jsonl(examples)
    assert len(records) == 5
    code, out, err = run_cli("regrade", examples, "--format", "json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["rollouts"] == len(records)
    assert doc["reward_mismatches"] == 0 and doc["mismatch_examples"] == []
    mean = sum(r["reward"] for r in records) / len(records)
    assert doc["mean_reward"] == pytest.approx(mean, rel=1e-12)


def test_gym_grade_and_evalkit_grade_agree_on_examples_and_generated(gym, gym_files, tmp_path):
    """Gym's verify(): strip `response.output_text`, then `_grade`; evalkit's grade() on the
    message text must give the same float, bit for bit."""
    from evalkit.benchmarks.mrcr.grading import grade, message_text
    from helpers.rungen import write_mrcr_run

    task = write_mrcr_run(
        tmp_path, n_items=45, seed=3, leak_fraction=0.1, length_fraction=0.1, skill=0.6
    )
    records = read_jsonl(gym_files["examples"])
    records += read_jsonl(task / "artifacts" / "evaluator_rollouts.jsonl")
    for rec in records:
        text = message_text(rec["response"])
        # openai's Response.output_text joins the output_text parts of message items.
        gym_text = (text or "").strip()
        prefix = rec["random_string_to_prepend"]
        theirs = gym.app._grade(gym_text, rec["expected_answer"], prefix)
        ours, matched = grade(text, rec["expected_answer"], prefix)
        assert ours == theirs == rec["reward"]
        assert matched == gym_text.startswith(prefix) == rec["prefix_matched"]


# --------------------------------------------------------------------- aggregation


def _evalkit_aggregate(run_cli, rollouts: Path) -> dict:
    code, out, err = run_cli("regrade", rollouts, "--format", "json")
    assert out, err
    return json.loads(out)


@pytest.mark.parametrize("repeats", [1, 3])
def test_aggregation_agrees_with_gyms_compute_metrics(gym, run_cli, tmp_path, repeats):
    from helpers.rungen import write_mrcr_run

    task = write_mrcr_run(
        tmp_path,
        n_items=60,
        seed=11,
        repeats=repeats,
        skill=0.5,
        skill_by_needles={2: 1.0, 4: 0.7, 8: 0.4},
        no_prefix_share=0.5,
    )
    rollouts = task / "artifacts" / "evaluator_rollouts.jsonl"
    theirs = gym_metrics(gym, read_jsonl(rollouts))
    ours = _evalkit_aggregate(run_cli, rollouts)
    assert ours["pass_at_1"] == pytest.approx(theirs["pass@1/accuracy"], rel=1e-12)
    key = f"pass@1[avg-of-{repeats}]/accuracy"
    assert ours["pass_at_1_avg_of_k"] == pytest.approx(theirs[key], rel=1e-12)
    gym_strata = {
        k.split("/")[0].removeprefix("n_needles="): v
        for k, v in theirs.items()
        if k.startswith("n_needles=") and k.endswith("/pass@1/accuracy")
    }
    assert set(ours["strata"]) == set(gym_strata) == {"2", "4", "8"}
    for needles, value in gym_strata.items():
        assert ours["strata"][needles] == pytest.approx(value, rel=1e-12), needles


def _record(task: int, rollout: int, reward: float, needles: int) -> dict:
    """A minimal Gym rollout line whose stored reward is what grading gives: the text is
    the answer itself (reward 1.0), empty (0.0) or half of it (a ratio in between)."""
    prefix = f"P{task:09d}"
    body = " ".join(["lantern river harbor ember willow"] * 8)  # no edge spaces: Gym strips
    text = {1.0: prefix + body, 0.0: ""}.get(reward, prefix + body[: len(body) // 2])
    return {
        "response": {
            "output": [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "usage": {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110},
            "incomplete_details": None,
        },
        "reward": reward,
        "expected_answer": prefix + body,
        "random_string_to_prepend": prefix,
        "n_needles": needles,
        "n_tokens": 90,
        "prefix_matched": reward > 0,
        "seq_match_ratio": reward,
        "_ng_task_index": task,
        "_ng_rollout_index": rollout,
        "agent_ref": {"type": "responses_api_agents", "name": "mrcr_n3_1m_benchmark_simple_agent"},
    }


def test_binary_and_continuous_tasks_follow_gyms_pass_at_1(gym, run_cli, tmp_path):
    """Gym's two pass@k branches with repeats: all-0/1 tasks are combinatorial (their
    mean), any other task scores its rollout 0 only."""
    from evalkit.benchmarks.mrcr.grading import grade

    half = _record(0, 0, 0.5, 2)
    ratio, _ = grade(
        half["response"]["output"][0]["content"][0]["text"],
        half["expected_answer"],
        half["random_string_to_prepend"],
    )
    plan = {  # task -> (needles, rewards by rollout)
        0: (2, [0.0, 1.0, 1.0]),
        1: (2, [1.0, 1.0, 1.0]),
        2: (4, [0.0, 0.0, 0.0]),
        3: (4, [ratio, 1.0, 0.0]),
        4: (8, [0.0, ratio, 1.0]),
        5: (8, [1.0, 0.0, 1.0]),
    }
    records = []
    for task, (needles, rewards) in plan.items():
        for rollout, reward in enumerate(rewards):
            rec = _record(task, rollout, 0.5 if reward == ratio else reward, needles)
            rec["reward"] = rec["seq_match_ratio"] = reward
            records.append(rec)
    path = tmp_path / "evaluator_rollouts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in reversed(records)))
    theirs = gym_metrics(gym, records)
    ours = _evalkit_aggregate(run_cli, path)
    assert ours["reward_mismatches"] == 0
    assert ours["pass_at_1"] == pytest.approx(theirs["pass@1/accuracy"], rel=1e-12)
    assert ours["pass_at_1_avg_of_k"] == pytest.approx(theirs["pass@1[avg-of-3]/accuracy"])
    for needles in ("2", "4", "8"):
        assert ours["strata"][needles] == pytest.approx(
            theirs[f"n_needles={needles}/pass@1/accuracy"], rel=1e-12
        )
