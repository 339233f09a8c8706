"""`evalkit compare`: content pairing, counts, comparability and verdicts on generated runs."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

import pytest

from evalkit.comparison import stats
from evalkit.comparison.verdict import decide
from helpers.rungen import make_items, write_mrcr_run

FAST = ("--bootstrap", "2000")


def _items(n: int, seed: int) -> list:
    # Short answers keep the generator's grading fast; pairing does not depend on length.
    return make_items(n, seed, prompt_chars=600, answer_chars=(150, 400))


def _run(root: Path, name: str, **kwargs) -> Path:
    # A canary of exactly its items (`++limit=N`), so `evalkit validate` calls it valid:
    # compare refuses a side that is not. Different seeds make independent runs (their
    # own invocation id and response draws); the same seed makes a copy.
    kwargs.setdefault("limit", len(kwargs["items"]) if "items" in kwargs else None)
    return write_mrcr_run(root / name, **kwargs)


def _json(run_cli, base: Path, cand: Path, *extra: str) -> tuple[int, dict]:
    """The MRCR task's item-level document. The JSON is the suite document whatever the
    number of tasks: `gate` and `tasks` always there, the MRCR detail nested in its row,
    the gate passing exactly when that one task shows no regression."""
    code, out, err = run_cli("compare", base, cand, "--format", "json", *FAST, *extra)
    assert code in (0, 1), err
    suite = json.loads(out)
    assert suite["kind"] == "suite" and len(suite["tasks"]) == 1
    [row] = suite["tasks"]
    detail = row["detail"]
    assert row["verdict"] == detail["verdict"]
    assert (suite["gate"] == "pass") == (detail["verdict"] == "no_regression") == (code == 0)
    return code, detail


def _rewards_by_index(task_dir: Path) -> dict[int, tuple[int, float]]:
    """task index -> (n_needles, reward) straight from the rollouts file (one rollout each)."""
    out = {}
    for line in (task_dir / "artifacts" / "evaluator_rollouts.jsonl").read_text().splitlines():
        rec = json.loads(line)
        out[rec["_ng_task_index"]] = (rec["n_needles"], rec["reward"])
    return out


# ---- pairing ---------------------------------------------------------------------------


def test_pairs_by_content_when_candidate_indices_are_shuffled(tmp_path, run_cli):
    items = _items(120, seed=3)
    # Per-item difficulty: the model either knows an item (skill 1) or does not (skill 0).
    skill = [1.0 if i % 2 == 0 else 0.0 for i in range(len(items))]
    order = list(range(len(items)))
    random.Random(9).shuffle(order)
    base = _run(tmp_path, "base", items=items, skill=skill, seed=0)
    cand = _run(
        tmp_path, "cand", items=[items[i] for i in order], skill=[skill[i] for i in order], seed=1
    )
    _, doc = _json(run_cli, base, cand)
    assert doc["n_paired"] == 120
    assert doc["n_unpaired_base"] == doc["n_unpaired_cand"] == 0
    assert doc["comparable"] is True
    assert set(doc["strata"]) == {"2", "4", "8"}
    assert all(doc["strata"][h]["n"] == 40 for h in ("2", "4", "8"))

    # The reference: join the two rollouts files on content by hand.
    def by_key(task_dir):
        out = {}
        for line in (task_dir / "artifacts" / "evaluator_rollouts.jsonl").read_text().splitlines():
            r = json.loads(line)
            out[(r["random_string_to_prepend"], r["n_needles"], r["expected_answer"])] = r
        return out

    kb, kc = by_key(base), by_key(cand)
    d = [100 * (kc[k]["reward"] - kb[k]["reward"]) for k in kb]
    mean, se, n = stats.mean_se(d)
    assert doc["overall"]["delta"] == pytest.approx(mean)
    # Sample-proportional strata: stratified SE is close to (not above) the pooled one.
    assert doc["overall"]["se"] <= se * 1.01

    # Pairing by task index gives a different, wrong answer: its differences mix items
    # the model knows with items it does not, so the spread (and the interval) explodes.
    rb, rc = _rewards_by_index(base), _rewards_by_index(cand)
    wrong = stats.paired_t([100 * rb[i][1] for i in rb], [100 * rc[i][1] for i in rb])
    assert wrong.se > 2.5 * doc["overall"]["se"]
    # ...and its needle strata are not even the same items (index order differs).
    assert sum(rb[i][0] != rc[i][0] for i in rb) > 40


def test_same_run_reindexed_is_reuse_and_not_comparable(tmp_path, run_cli):
    """The candidate is the baseline's rollouts with task indices permuted (as a run that
    prepared its items in another order would have): by content the runs are identical,
    which is exactly why they are not two measurements."""
    items = _items(90, seed=6)
    base = _run(tmp_path, "base", items=items, seed=0, skill=0.5)
    cand = _run(tmp_path, "cand", items=items, seed=0, skill=0.5)
    rollouts = cand / "artifacts" / "evaluator_rollouts.jsonl"
    records = [json.loads(line) for line in rollouts.read_text().splitlines()]
    new_index = list(range(len(records)))
    random.Random(2).shuffle(new_index)
    for rec in records:
        rec["_ng_task_index"] = new_index[rec["_ng_task_index"]]
    rollouts.write_text("".join(json.dumps(r) + "\n" for r in records))

    code, doc = _json(run_cli, base, cand)
    assert doc["n_paired"] == 90
    assert doc["overall"]["delta"] == 0.0 and doc["overall"]["ci95"] == [0.0, 0.0]
    assert doc["verdict"] == "not_comparable" and code == 1
    trust = {c["id"]: c for c in doc["trust"]}
    assert trust["response-reuse"]["status"] == "fail"
    assert trust["response-reuse"]["identical_response_ids"] == 90
    # A copied directory keeps its invocation id (the `<stamp>-<16 hex>` directory name).
    assert trust["invocation-id"]["status"] == "fail"
    assert any("same invocation id" in r for r in doc["reasons"])

    rb, rc = _rewards_by_index(base), _rewards_by_index(cand)
    wrong = stats.paired_t([100 * rb[i][1] for i in rb], [100 * rc[i][1] for i in rb])
    assert wrong.delta == pytest.approx(0.0, abs=1e-9)  # same multiset of scores...
    assert wrong.se > 3.0  # ...but a spread that pairing by index invents
    assert decide(wrong.delta, wrong.ci95, 1.0)[0] == "inconclusive"


def test_unpaired_items_are_counted(tmp_path, run_cli):
    # 3 + 3 of 63 items (9.5 %) do not pair: past the 5 % share, not comparable.
    items = _items(60, seed=0)
    others = _items(3, seed=99)
    base = _run(tmp_path, "base", items=items, seed=0, skill=0.6)
    cand = _run(tmp_path, "cand", items=items[:57] + others, seed=1, skill=0.6)
    _, doc = _json(run_cli, base, cand)
    assert doc["n_paired"] == 57
    assert doc["n_unpaired_base"] == 3
    assert doc["n_unpaired_cand"] == 3
    assert doc["pairing"]["only_in_base"] == 3 and doc["pairing"]["items_seen"] == 63
    assert doc["comparable"] is False
    assert any("9.5 % do not pair (> 5 %)" in r for r in doc["reasons"])


def test_a_few_missing_candidate_items_count_as_its_failures(tmp_path, run_cli):
    # 2 of 60 (3.3 %) only in base: paired, the two counted as candidate failures. (The
    # pair is still not comparable: validate calls the candidate incomplete.)
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0, skill=0.6)
    cand = _run(tmp_path, "cand", items=items[:58], seed=1, skill=0.6, limit=60)
    _, doc = _json(run_cli, base, cand)
    assert doc["overall"]["n"] == 60 and doc["pairing"]["only_in_base"] == 2
    assert any("2 baseline items missing from the candidate" in n for n in doc["notes"])


def test_more_than_5_percent_unpaired_is_not_comparable(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items[:50] + _items(10, seed=98), seed=1)
    code, doc = _json(run_cli, base, cand)
    assert code == 1
    assert doc["verdict"] == "not_comparable" and doc["comparable"] is False
    assert doc["n_paired"] == 50
    assert any(
        "50 paired, 10 only in base, 10 only in candidate" in r and "of 70 items" in r
        for r in doc["reasons"]
    )


def test_repeats_are_averaged_per_item_before_pairing(tmp_path, run_cli):
    items = _items(30, seed=4)
    base = _run(tmp_path, "base", items=items, seed=0, repeats=3)
    cand = _run(tmp_path, "cand", items=items, seed=5, repeats=1)
    _, doc = _json(run_cli, base, cand)
    assert doc["n_paired"] == 30
    assert doc["rollouts"] == {"base": 90, "cand": 30}
    per_item: dict[tuple, list[float]] = {}
    for line in (base / "artifacts" / "evaluator_rollouts.jsonl").read_text().splitlines():
        r = json.loads(line)
        key = (r["random_string_to_prepend"], r["n_needles"], r["expected_answer"])
        per_item.setdefault(key, []).append(r["reward"])
    expected = sum(100 * sum(v) / len(v) for v in per_item.values()) / len(per_item)
    assert doc["overall"]["base"] == pytest.approx(expected)


# ---- comparability ---------------------------------------------------------------------


def test_variant_mismatch_is_not_comparable(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=0, variant="config_n3_128k.yaml")
    code, doc = _json(run_cli, base, cand)
    assert code == 1
    assert doc["verdict"] == "not_comparable"
    assert any("variant differs" in r for r in doc["reasons"])


def _set_rollout_sampling(task: Path, **values) -> None:
    """Rewrite responses_create_params in the rollouts (None deletes the key)."""
    rollouts = task / "artifacts" / "evaluator_rollouts.jsonl"
    records = [json.loads(line) for line in rollouts.read_text().splitlines()]
    for rec in records:
        for key, value in values.items():
            if value is None:
                rec["responses_create_params"].pop(key, None)
            else:
                rec["responses_create_params"][key] = value
    rollouts.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_sampling_mismatch_is_read_from_the_rollouts(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=1)
    # What the agent sent wins over the config: the config still says 1.0.
    _set_rollout_sampling(cand, temperature=0.6)
    code, doc = _json(run_cli, base, cand)
    assert code == 1
    assert doc["verdict"] == "not_comparable"
    assert any("temperature base 1, candidate 0.6" in r for r in doc["reasons"])
    assert doc["sampling"]["base"] == {"temperature": 1.0, "top_p": 0.95}
    assert doc["sampling"]["cand_source"].startswith("rollouts (responses_create_params)")


def test_sampling_falls_back_to_the_config(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=1)
    for task in (base, cand):
        _set_rollout_sampling(task, temperature=None, top_p=None)
    config = cand / "artifacts" / "run_config.yml"
    config.write_text(
        config.read_text()
        .replace("temperature: 1.0", "temperature: 0.6")
        .replace(
            "responses_create_params.temperature=1.0", "responses_create_params.temperature=0.6"
        )
    )
    code, doc = _json(run_cli, base, cand)
    assert code == 1 and doc["verdict"] == "not_comparable"
    assert any("temperature base 1, candidate 0.6" in r for r in doc["reasons"])
    assert doc["sampling"]["cand_source"].startswith("artifacts/run_config.yml:")


def test_sampling_read_from_gym_override_first():
    from evalkit.runs.settings import own_sections, sampling_from_config

    config = {
        "config": {
            "params": {"temperature": 1.0, "top_p": 0.95, "extra": {"command": "x"}},
        },
        "evaluation": {"tasks": [{"nemo_evaluator_config": {"config": {"params": {}}}}]},
    }
    assert sampling_from_config(own_sections(config)) == {"temperature": 1.0, "top_p": 0.95}
    config["config"]["params"]["extra"]["command"] = (
        "ng_e2e_collect_rollouts ++responses_create_params.temperature=0.7"
    )
    assert sampling_from_config(own_sections(config)) == {"temperature": 0.7, "top_p": 0.95}


OTHER_GYM_COMMAND = "++num_repeats=8 ++limit=10 ++responses_create_params.temperature=0.2"


def test_another_tasks_settings_in_the_metadata_are_not_this_tasks():
    """Issue 47: run_config.yml's metadata holds the whole invocation; an AIME task there
    at temperature 0.6 with 64 samples and a limit says nothing about this GPQA task."""
    from evalkit.runs.settings import settings_from

    aime = {
        "config": {"params": {"temperature": 0.6, "limit_samples": 4, "extra": {"n_samples": 64}}}
    }
    config = {
        "config": {"params": {"temperature": 1.0, "top_p": 0.95, "limit_samples": None}},
        "metadata": {
            "launcher_resolved_config": {
                "evaluation": {
                    "tasks": [
                        {"name": "simple_evals.aime_2025", "nemo_evaluator_config": aime},
                        {
                            "name": "nemo_gym",
                            "nemo_evaluator_config": {
                                "config": {"params": {"extra": {"command": OTHER_GYM_COMMAND}}}
                            },
                        },
                    ]
                }
            }
        },
    }
    settings = settings_from([config])
    assert settings.sampling == {"temperature": 1.0, "top_p": 0.95}
    assert settings.limit is None and settings.num_repeats == 1


# ---- verdicts --------------------------------------------------------------------------


def test_clear_regression(tmp_path, run_cli):
    items = _items(240, seed=1)
    base = _run(tmp_path, "base", items=items, seed=0, skill=0.9)
    cand = _run(tmp_path, "cand", items=items, seed=1, skill=0.4)
    code, doc = _json(run_cli, base, cand)
    assert code == 1
    assert doc["verdict"] == "regression"
    o = doc["overall"]
    assert o["ci95"][1] < 0 and o["delta"] < -1.0
    assert o["bootstrap_ci95"][1] < 0
    assert o["p_permutation"] < 0.01
    assert doc["weights"]["scheme"] == "sample-proportional"
    assert doc["seed"] == 0


def test_clear_no_regression(tmp_path, run_cli):
    items = _items(240, seed=2)
    # Independent runs of two models that know the same items (per-item skill 0.97 or
    # 0.03), the candidate a little better on the items both know.
    known = [0.97 if i % 2 else 0.03 for i in range(len(items))]
    base = _run(tmp_path, "base", items=items, seed=0, skill=known)
    cand = _run(tmp_path, "cand", items=items, seed=1, skill=[min(1.0, k + 0.02) for k in known])
    code, doc = _json(run_cli, base, cand)
    assert doc["verdict"] == "no_regression" and code == 0
    assert doc["overall"]["ci95"][0] >= -1.0
    assert doc["overall"]["corr"] > 0.8


def test_inconclusive_when_the_interval_is_wide(tmp_path, run_cli):
    items = _items(45, seed=5)
    base = _run(tmp_path, "base", items=items, seed=0, skill=0.5)
    cand = _run(tmp_path, "cand", items=items, seed=7, skill=0.5)
    code, doc = _json(run_cli, base, cand)
    assert code == 1
    assert doc["verdict"] == "inconclusive"
    lo, hi = doc["overall"]["ci95"]
    assert lo < -1.0 and hi > 0
    # The run is too small to see a 1-point change: the MDE says so.
    assert doc["overall"]["mde"] > 5


@pytest.mark.parametrize(
    ("delta", "ci", "verdict"),
    [
        (-3.0, (-5.0, -1.5), "regression"),
        (-0.8, (-1.5, -0.1), "inconclusive"),  # below 0 but not beyond the margin
        (-0.2, (-0.9, 0.5), "no_regression"),
        (0.0, (-1.0, 1.0), "no_regression"),  # bound exactly at -margin passes
        (-2.0, (-4.0, 0.1), "inconclusive"),
        (float("nan"), (float("nan"), float("nan")), "inconclusive"),
    ],
)
def test_decide_rule(delta, ci, verdict):
    assert decide(delta, ci, 1.0)[0] == verdict


# ---- output and errors ------------------------------------------------------------------


def test_json_has_the_documented_keys_and_seeded_figures(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=3)
    _, doc = _json(run_cli, base, cand, "--seed", "4")
    for key in (
        "comparable",
        "n_paired",
        "n_unpaired_base",
        "n_unpaired_cand",
        "margin",
        "overall",
        "strata",
        "weights",
        "seed",
        "verdict",
        "reasons",
    ):
        assert key in doc
    for key in (
        "base",
        "cand",
        "delta",
        "ci95",
        "bootstrap_ci95",
        "p_permutation",
        "mde",
        "n",
        "se",
    ):
        assert key in doc["overall"]
        assert key in doc["strata"]["4"]
    assert doc["seed"] == 4
    _, again = _json(run_cli, base, cand, "--seed", "4")
    assert again["overall"]["bootstrap_ci95"] == doc["overall"]["bootstrap_ci95"]
    assert again["overall"]["p_permutation"] == doc["overall"]["p_permutation"]
    assert math.isclose(sum(doc["weights"][h] for h in ("2", "4", "8")), 1.0)


def test_text_output_has_table_bars_and_verdict(tmp_path, run_cli):
    items = _items(60, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=3)
    code, out, _ = run_cli("compare", base, cand, *FAST)
    assert code in (0, 1)
    assert "items paired by content: 60" in out
    assert "8 needles" in out and "95% CI (t)" in out
    assert "#" in out and "verdict:" in out


def test_artifacts_and_invocation_dirs_are_accepted(tmp_path, run_cli):
    items = _items(30, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=1)
    _, doc = _json(run_cli, base / "artifacts", cand.parent)
    assert doc["n_paired"] == 30 and doc["comparable"] is True


def test_unreadable_input_exits_2_with_one_line(tmp_path, run_cli):
    items = _items(30, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    code, out, err = run_cli("compare", base, tmp_path / "missing")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "missing" in err

    cand = _run(tmp_path, "cand", items=items, seed=0)
    rollouts = cand / "artifacts" / "evaluator_rollouts.jsonl"
    lines = rollouts.read_bytes().splitlines(keepends=True)
    rollouts.write_bytes(lines[0] + b'{"reward": 0.5, oops\n' + b"".join(lines[1:]))
    code, _, err = run_cli("compare", base, cand)
    assert code == 2
    assert err.count("\n") == 1 and "evaluator_rollouts.jsonl:2" in err
    assert "Traceback" not in err


def test_bad_arguments_are_usage_errors(tmp_path, run_cli):
    code, _, err = run_cli("compare", tmp_path, tmp_path, "--margin", "-1")
    assert code == 2 and "--margin" in err


# ---- tasks with only results.yml scores ---------------------------------------------------


def test_headline_comparison_is_unpaired_and_says_so():
    from evalkit.comparison.headlines import compare_headlines
    from evalkit.comparison.sides import Headline

    base = [
        Headline("gpqa_diamond", "gpqa_pass_at_1", 70.0, 0.6, "0-100"),
        Headline("tau2_bench_telecom", "tau2_bench_telecom_pass_at_1", 0.52, 0.02, "0-1"),
        Headline("aime", "AIME_2025_score", 0.80, None, "0-1"),
        Headline("only_base", "m", 1.0, 0.1, "0-100"),
    ]
    cand = [
        Headline("gpqa_diamond", "gpqa_pass_at_1", 69.8, 0.2, "0-100"),
        Headline("tau2_bench_telecom", "tau2_bench_telecom_pass_at_1", 0.40, 0.02, "0-1"),
        Headline("aime", "AIME_2025_score", 0.79, None, "0-1"),
    ]
    rows = {r["task"]: r for r in compare_headlines(base, cand, margin=1.0)}
    gpqa = rows["gpqa_diamond"]
    assert gpqa["paired"] is False
    assert gpqa["delta"] == pytest.approx(-0.2)
    assert gpqa["se"] == pytest.approx(math.sqrt(0.6**2 + 0.2**2))
    assert gpqa["verdict"] == "inconclusive"  # lower bound -0.2 - 1.96 x 0.632 < -1
    assert any("unpaired" in r for r in gpqa["reasons"])
    tau = rows["tau2_bench_telecom"]  # 0-1 scale: compared in points (x100)
    assert tau["delta"] == pytest.approx(-12.0)
    assert tau["se"] == pytest.approx(math.sqrt(8.0))
    assert tau["verdict"] == "regression"
    assert rows["aime"]["verdict"] == "inconclusive"  # no stderr: delta only
    assert rows["aime"]["ci95"] == [pytest.approx(float("nan"), nan_ok=True)] * 2
    assert rows["only_base"]["verdict"] == "not_comparable"


def test_combined_verdict_takes_the_worst():
    from evalkit.comparison.verdict import combine

    assert combine(["no_regression", "inconclusive"]) == "inconclusive"
    assert combine(["no_regression", "not_comparable", "regression"]) == "regression"
    assert combine(["no_regression"]) == "no_regression"
    assert combine([]) == "not_comparable"


def _results_run(
    root: Path,
    task: str,
    value: float,
    stderr: float | None,
    metric: str = "pass_at_1",
    score: str = "symbolic_correct",
) -> Path:
    # Each side its own invocation id: the same id on both is a run compared with itself.
    invocation = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    task_dir = root / f"20261130_120000-{invocation}" / f"{task}.0"
    (task_dir / "artifacts").mkdir(parents=True)
    (task_dir / "logs").mkdir()
    stats_block = ""
    if stderr is not None:
        stats_block = f"              stats:\n                stderr: {stderr}\n"
    (task_dir / "artifacts" / "results.yml").write_text(
        "results:\n"
        "  tasks:\n"
        f"    {task}:\n"
        "      metrics:\n"
        f"        {metric}:\n"
        "          scores:\n"
        f"            {score}:\n"
        f"              value: {value}\n" + stats_block + "  groups: {}\n"
    )
    return task_dir


def test_results_only_runs_are_compared_unpaired(tmp_path, run_cli):
    base = _results_run(tmp_path / "b", "gpqa", 71.2, 0.2)
    cand = _results_run(tmp_path / "c", "gpqa", 71.0, 0.2)
    code, out, err = run_cli("compare", base.parent, cand.parent, "--format", "json")
    doc = json.loads(out)
    assert doc["kind"] == "suite"
    [row] = doc["tasks"]
    assert row["task"] == "gpqa.0" and row["benchmark"] == "gpqa" and row["paired"] is False
    assert row["metric"] == "gpqa_pass_at_1_symbolic_correct" and row["scale"] == "0-100"
    assert row["delta"] == pytest.approx(-0.2)
    assert row["se"] == pytest.approx(math.sqrt(0.08))  # lower bound -0.2 - 1.96 x 0.283
    # a results.yml alone proves nothing about sampling, reuse or the harness: fail closed
    assert row["verdict"] == "unverified" and doc["gate"] == "unverified" and code == 1
    assert row["verdict_if_verified"] == "no_regression"

    code, out, _ = run_cli("compare", base, cand)
    assert "UNPAIRED" in out and "gpqa" in out and code == 1

    worse = _results_run(tmp_path / "w", "gpqa", 66.0, 0.3)
    code, out, _ = run_cli("compare", base, worse, "--format", "json")
    doc = json.loads(out)
    assert doc["tasks"][0]["verdict"] == "regression" and doc["gate"] == "fail" and code == 1


def test_results_on_a_0_1_scale_are_compared_in_points(tmp_path, run_cli):
    def tau(root, value, se):
        return _results_run(root, "tau2_bench_telecom", value, se, "pass_at_1", "pass_at_1")

    base, cand = tau(tmp_path / "b", 0.52, 0.01), tau(tmp_path / "c", 0.515, 0.01)
    code, out, _ = run_cli("compare", base, cand, "--format", "json")
    [row] = json.loads(out)["tasks"]
    assert row["scale"] == "0-1"
    assert row["delta"] == pytest.approx(-0.5)  # points: 100 x (0.515 - 0.52)
    assert row["se"] == pytest.approx(math.sqrt(2.0))
    assert row["verdict"] == "unverified" and row["verdict_if_verified"] == "inconclusive"
    assert code == 1


def test_mrcr_against_a_run_without_rollouts_is_not_comparable(tmp_path, run_cli):
    mrcr = _run(tmp_path, "base", items=_items(30, seed=0), seed=0)
    other = _results_run(tmp_path / "c", "gpqa", 71.0, 0.3)
    code, out, _ = run_cli("compare", mrcr, other, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["gate"] == "not_comparable"
    rows = {row["benchmark"]: row for row in doc["tasks"]}
    assert rows["mrcr"]["reasons"] == ["only in the baseline suite"]
    assert rows["gpqa"]["reasons"] == ["only in the candidate suite"]


def test_mrcr_run_without_rollouts_is_unreadable_input(tmp_path, run_cli):
    items = _items(30, seed=0)
    base = _run(tmp_path, "base", items=items, seed=0)
    cand = _run(tmp_path, "cand", items=items, seed=0)
    (cand / "artifacts" / "evaluator_rollouts.jsonl").unlink()
    code, _, err = run_cli("compare", base, cand)
    assert code == 2 and "cannot be paired" in err and err.count("\n") == 1
