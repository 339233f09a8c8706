"""Whole-suite compare: trust checks, the gate file, external references (issue 12).

Every run here is generated (tests/helpers/rungen.py): MRCR graded with Gym's rules by
the generator itself, GDPVal rubric-mode rollouts (line shape guessed, see the generator),
and results.yml-only harness tasks in nemo-evaluator's layout.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from helpers.rungen import (
    make_items,
    write_gdpval_run,
    write_mrcr_run,
    write_results_task,
)

FAST = ("--bootstrap", "1000")
N_MRCR = 150
GPQA_KEY = ("gpqa_pass_at_1", "symbolic_correct")


@pytest.fixture(scope="module")
def mrcr_items():
    return make_items(N_MRCR, 11, prompt_chars=600, answer_chars=(150, 400))


def _known(n: int) -> list[float]:
    # Per-item difficulty shared by every model: it knows an item or it does not.
    return [0.97 if i % 4 else 0.05 for i in range(n)]  # i % 3 sets the needles


def make_suite(
    root: Path,
    items,
    *,
    seed: int,
    checkpoint: str,
    skill_by_needles: dict[int, float] | None = None,
    gdpval_shift: float = 0.0,
    gym_version: str = "baked-in 0.2.0rc0",
    gpqa: tuple[float, float | None] = (71.0, 0.3),
) -> Path:
    """One invocation: nemo_gym.0 (MRCR canary of its items), nemo_gym.1 (GDPVal),
    gpqa_diamond.0 (results.yml only). Returns the invocation directory."""
    task = write_mrcr_run(
        root,
        items=items,
        limit=len(items),
        seed=seed,
        skill=_known(len(items)),
        skill_by_needles=skill_by_needles,
        checkpoint=checkpoint,
    )
    invocation = task.parent
    quality = [0.3 + 0.5 * (i % 2) + gdpval_shift for i in range(80)]
    write_gdpval_run(
        invocation / "nemo_gym.1", n_items=80, seed=seed, quality=quality, gym_version=gym_version
    )
    write_results_task(invocation, "gpqa_diamond", gpqa[0], gpqa[1], GPQA_KEY)
    return invocation


GATE = """\
default: {points: 1.0}
benchmarks:
  mrcr: {points: 5.0}  # 150 items: about a 5-point resolution
  gdpval: {points: 8.0}
  gpqa: {relative: 0.02}
"""


@pytest.fixture(scope="module")
def suites(tmp_path_factory, mrcr_items):
    root = tmp_path_factory.mktemp("suites")
    base = make_suite(root / "base", mrcr_items, seed=0, checkpoint="/ckpt/model-bf16")
    cand = make_suite(
        root / "cand", mrcr_items, seed=1, checkpoint="/ckpt/model-nvfp4", gpqa=(70.9, 0.3)
    )
    gate = root / "gate.yaml"
    gate.write_text(GATE)
    return {"root": root, "base": base, "cand": cand, "gate": gate}


# What these generated suites do not record (the GPQA task is a results.yml alone, GDPVal
# has no run.sub): without accepting them, every row here is `unverified` (issue 47).
GAPS = (
    "checkpoint",
    "images",
    "max_new_tokens",
    "repeats",
    "limit_samples",
    "sampling-temperature",
    "sampling-top_p",
    "response-reuse",
    "harness-version",
    "reasoning_traces",
    "chat_template_kwargs",
    "system_prompt",
)
ACCEPT_GAPS = tuple(a for gap in GAPS for a in ("--accept", gap))


def test_without_evidence_the_suite_is_unverified_never_pass(run_cli, suites):
    code, doc = _compare(run_cli, suites["base"], suites["cand"], "--gate", suites["gate"])
    rows = _rows(doc)
    assert rows["gpqa"]["verdict"] == "unverified" and code == 1
    assert rows["gpqa"]["verdict_if_verified"] == "no_regression"
    assert doc["gate"] == "unverified"
    assert any("unverified response-reuse" in r for r in rows["gpqa"]["reasons"])
    assert any("record next time" in r for r in rows["gpqa"]["reasons"])


def _compare(run_cli, base, cand, *extra):
    code, out, err = run_cli("compare", base, cand, "--format", "json", *FAST, *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


def _detail(run_cli, base, cand):
    """One Gym task on each side: the suite document still, its row carrying the detail."""
    code, doc = _compare(run_cli, base, cand)
    assert set(doc) >= {"gate", "tasks"} and len(doc["tasks"]) == 1
    return code, doc["tasks"][0]["detail"]


def _rows(doc) -> dict[str, dict]:
    return {row["benchmark"]: row for row in doc["tasks"]}


# ---- the gate ---------------------------------------------------------------------------


def test_independent_equal_suites_pass_the_gate(run_cli, suites):
    code, doc = _compare(
        run_cli, suites["base"], suites["cand"], "--gate", suites["gate"], *ACCEPT_GAPS
    )
    rows = _rows(doc)
    assert set(rows) == {"mrcr", "gdpval", "gpqa"}
    assert any(r.startswith("accepted without evidence (--accept)") for r in doc["reasons"])
    assert {r["verdict"] for r in rows.values()} == {"no_regression"}, doc
    assert doc["gate"] == "pass" and code == 0
    for key in ("task", "benchmark", "paired", "n", "base", "cand", "delta", "ci95"):
        assert all(key in r for r in doc["tasks"])
    assert rows["mrcr"]["paired"] and rows["mrcr"]["n"] == N_MRCR
    assert rows["gdpval"]["paired"] and rows["gdpval"]["n"] == 80
    assert rows["gpqa"]["paired"] is False and "results.yml only" in rows["gpqa"]["paired_why"]
    # Margins came from the gate: points, and 2 % of the baseline's 71.0.
    assert rows["mrcr"]["margin"] == 5.0 and rows["gdpval"]["margin"] == 8.0
    assert rows["gpqa"]["margin"] == pytest.approx(1.42)
    assert rows["gdpval"]["provenance"]["base"]["gym_version"] == "baked-in 0.2.0rc0"
    assert rows["mrcr"]["provenance"]["cand"]["checkpoint"] == "/ckpt/model-nvfp4"

    code, text, _ = run_cli(
        "compare", suites["base"], suites["cand"], *FAST, "--gate", suites["gate"], *ACCEPT_GAPS
    )
    assert "gate: pass" in text and "UNPAIRED" in text and code == 0
    assert "ACCEPTED without evidence" in text


def test_an_8_needle_loss_fails_the_gate(run_cli, suites, mrcr_items):
    worse = make_suite(
        suites["root"] / "worse",
        mrcr_items,
        seed=2,
        checkpoint="/ckpt/model-int4",
        skill_by_needles={8: 0.3},
    )
    code, doc = _compare(run_cli, suites["base"], worse, "--gate", suites["gate"])
    rows = _rows(doc)
    assert rows["mrcr"]["verdict"] == "regression"
    assert rows["mrcr"]["strata"]["8"]["ci95"][1] < 0  # the loss sits in the 8-needle items
    strata = rows["mrcr"]["strata"]
    assert strata["8"]["delta"] < strata["2"]["delta"] - 20
    assert doc["gate"] == "fail" and code == 1
    assert any(r.startswith("regression: mrcr") for r in doc["reasons"])


def test_a_score_without_stderr_makes_the_gate_inconclusive(run_cli, suites, mrcr_items):
    cand = make_suite(
        suites["root"] / "nostderr", mrcr_items, seed=3, checkpoint="/ckpt/b", gpqa=(71.0, None)
    )
    code, doc = _compare(run_cli, suites["base"], cand, "--gate", suites["gate"], *ACCEPT_GAPS)
    assert _rows(doc)["gpqa"]["verdict"] == "inconclusive"
    assert doc["gate"] == "inconclusive" and code == 1


def test_different_gym_versions_are_not_comparable(run_cli, suites, mrcr_items):
    sha = "dd41196f620f2af99947d776cbe5da9439d2a08d"
    cand = make_suite(
        suites["root"] / "gitgym", mrcr_items, seed=4, checkpoint="/ckpt/c", gym_version=sha
    )
    code, doc = _compare(run_cli, suites["base"], cand, "--gate", suites["gate"])
    gdpval = _rows(doc)["gdpval"]
    assert gdpval["verdict"] == "not_comparable"
    assert any("NeMo Gym versions differ" in r and sha in r for r in gdpval["reasons"])
    assert doc["gate"] == "not_comparable" and code == 1


def test_same_checkpoint_on_both_sides_is_not_comparable(run_cli, suites, mrcr_items):
    cand = make_suite(suites["root"] / "samec", mrcr_items, seed=5, checkpoint="/ckpt/model-bf16")
    _, doc = _compare(run_cli, suites["base"], cand)
    mrcr = _rows(doc)["mrcr"]
    assert mrcr["verdict"] == "not_comparable"
    assert any("same checkpoint path" in r for r in mrcr["reasons"])


def test_an_invalid_side_makes_its_task_not_comparable(run_cli, suites, mrcr_items, tmp_path):
    cand = make_suite(tmp_path / "cut", mrcr_items, seed=6, checkpoint="/ckpt/d")
    rollouts = cand / "nemo_gym.0" / "artifacts" / "evaluator_rollouts.jsonl"
    data = rollouts.read_bytes()
    rollouts.write_bytes(data[: len(data) - 200])  # the writer was interrupted
    _, doc = _compare(run_cli, suites["base"], cand)
    mrcr = _rows(doc)["mrcr"]
    assert mrcr["verdict"] == "not_comparable" and mrcr["validation"]["cand"] == "incomplete"
    assert any("candidate run is incomplete under evalkit validate" in r for r in mrcr["reasons"])


# ---- response reuse ---------------------------------------------------------------------


def _copy_mrcr_artifacts(src: Path, dst: Path) -> None:
    for name in ("evaluator_rollouts.jsonl", "evaluator_rollouts_aggregate_metrics.json"):
        shutil.copy(
            src / "nemo_gym.0" / "artifacts" / name, dst / "nemo_gym.0" / "artifacts" / name
        )


def test_a_candidate_that_reused_the_baselines_cache_is_not_comparable(
    run_cli, suites, mrcr_items, tmp_path
):
    cand = make_suite(tmp_path / "reuse", mrcr_items, seed=7, checkpoint="/ckpt/e")
    _copy_mrcr_artifacts(suites["base"], cand)  # every request answered from the cache
    _, doc = _detail(run_cli, suites["base"] / "nemo_gym.0", cand / "nemo_gym.0")
    reuse = {c["id"]: c for c in doc["trust"]}["response-reuse"]
    assert reuse["status"] == "fail" and reuse["identical_response_ids"] == N_MRCR
    assert doc["verdict"] == "not_comparable"


def test_byte_identical_responses_with_fresh_ids_are_reuse(run_cli, suites, mrcr_items, tmp_path):
    cand = make_suite(tmp_path / "reuse2", mrcr_items, seed=8, checkpoint="/ckpt/f")
    _copy_mrcr_artifacts(suites["base"], cand)
    rollouts = cand / "nemo_gym.0" / "artifacts" / "evaluator_rollouts.jsonl"
    records = [json.loads(line) for line in rollouts.read_text().splitlines()]
    for i, rec in enumerate(records):
        rec["response"]["id"] = f"resp_fresh_{i}"
    rollouts.write_text("".join(json.dumps(r) + "\n" for r in records))
    _, doc = _detail(run_cli, suites["base"] / "nemo_gym.0", cand / "nemo_gym.0")
    reuse = {c["id"]: c for c in doc["trust"]}["response-reuse"]
    assert reuse["identical_response_ids"] == 0
    # Exact answers are identical in any two good runs and are not counted.
    assert 0 < reuse["compared_nontrivial"] < N_MRCR
    assert reuse["identical_nontrivial"] == reuse["compared_nontrivial"]
    assert reuse["status"] == "fail" and doc["verdict"] == "not_comparable"


def test_independent_runs_share_no_responses(run_cli, suites):
    _, doc = _detail(run_cli, suites["base"] / "nemo_gym.0", suites["cand"] / "nemo_gym.0")
    reuse = {c["id"]: c for c in doc["trust"]}["response-reuse"]
    assert reuse["status"] == "pass" and reuse["identical_nontrivial"] == 0
    assert doc["sampling"]["base_source"].startswith("rollouts (responses_create_params)")
    assert doc["provenance"]["base"]["invocation_id"] != doc["provenance"]["cand"]["invocation_id"]


def test_one_mrcr_task_is_the_suite_document_with_the_detail_nested(run_cli, suites):
    """Two independent runs with a real 8-needle loss: one shape for one task or many
    (a script reading `.gate` works on both); the text view prints the detailed form."""
    base, cand = suites["base"] / "nemo_gym.0", suites["cand"] / "nemo_gym.0"
    code, doc = _compare(run_cli, base, cand)
    assert doc["kind"] == "suite" and doc["gate"] in ("pass", "fail", "inconclusive")
    [row] = doc["tasks"]
    assert row["benchmark"] == "mrcr" and row["detail"]["benchmark"] == "mrcr"
    assert (
        set(row["detail"]["strata"]) == {"2", "4", "8"} and row["strata"] == row["detail"]["strata"]
    )
    text_code, out, _ = run_cli("compare", base, cand, *FAST)
    assert text_code == code and out.startswith("MRCR compare")


# ---- external references ------------------------------------------------------------------


def test_reference_distance_is_reported_and_far_blocks_pass(run_cli, suites):
    def compare_with_reference():
        return _compare(run_cli, suites["base"], suites["cand"], "--gate", suites["gate"],
                        "--reference", ref, *ACCEPT_GAPS)  # fmt: skip

    ref = suites["root"] / "ref.yaml"
    ref.write_text("tolerance: 3.0\nbenchmarks:\n  gpqa: {score: 72.0, source: 'model card'}\n")
    code, doc = compare_with_reference()
    gpqa = _rows(doc)["gpqa"]["reference"]
    assert gpqa["distance"] == pytest.approx(-1.0) and gpqa["status"] == "ok"
    assert doc["gate"] == "pass" and code == 0

    ref.write_text("benchmarks:\n  gpqa: {score: 80.0, source: 'model card', tolerance: 2}\n")
    code, doc = compare_with_reference()
    assert _rows(doc)["gpqa"]["reference"]["status"] == "far"
    assert doc["gate"] == "not_comparable" and code == 1
    assert any("from its reference 80" in r for r in doc["reasons"])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("default: {points: -1}\n", "default.points: must be >= 0"),
        ("benchmarks:\n  mrcr: {percent: 2}\n", "benchmarks.mrcr"),
        ("margins: 1\n", "unknown key(s) margins"),
        ("default: [1\n", "gate.yaml:"),
        ("default: {}\n", "default: expected a number of points"),  # neither key
        ("default: {points: 1, relative: 0.1}\n", "default: expected a number of points"),
    ],
)
def test_bad_gate_file_is_one_line_exit_2(run_cli, suites, tmp_path, body, words):
    gate = tmp_path / "gate.yaml"
    gate.write_text(body)
    code, out, err = run_cli("compare", suites["base"], suites["cand"], "--gate", gate)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_verbatim_copies_of_a_prompt_turn_are_not_reuse(run_cli, suites, mrcr_items, tmp_path):
    """Two honest runs whose model reproduces a needle verbatim write the same bytes; only
    which needle it picks is sampled. Such copies are not evidence of reuse."""
    sides = []
    for name, seed in (("copy-b", 9), ("copy-c", 10)):
        run = make_suite(tmp_path / name, mrcr_items, seed=seed, checkpoint=f"/ckpt/{name}")
        rollouts = run / "nemo_gym.0" / "artifacts" / "evaluator_rollouts.jsonl"
        records = [json.loads(line) for line in rollouts.read_text().splitlines()]
        for rec in records:
            turns = rec["responses_create_params"]["input"]
            first = next(t["content"] for t in turns if t["role"] == "assistant")
            text = rec["random_string_to_prepend"] + first
            rec["response"]["output"][-1]["content"][0]["text"] = text
        rollouts.write_text("".join(json.dumps(r) + "\n" for r in records))
        sides.append(run / "nemo_gym.0")
    _, doc = _detail(run_cli, *sides)
    reuse = {c["id"]: c for c in doc["trust"]}["response-reuse"]
    assert reuse["status"] == "pass" and reuse["identical_nontrivial"] == 0
    assert reuse["identical_verbatim_prompt_copies"] > N_MRCR // 2


def test_validate_reports_the_gym_version(run_cli, suites):
    for task, version in (
        ("nemo_gym.1", "baked-in 0.2.0rc0"),  # `=== NeMo Gym version ===`, non-git image
        ("nemo_gym.0", None),  # `=== NeMo Gym commit ===` then the pinned SHA
    ):
        code, out, err = run_cli("validate", suites["base"] / task, "--format", "json")
        checks = {c["id"]: c for c in json.loads(out)["checks"]}
        assert checks["gym-version"]["status"] == "pass", err
        if version:
            assert version in checks["gym-version"]["message"]
        else:
            assert re.search(r"[0-9a-f]{40}", checks["gym-version"]["message"])


def test_identical_texts_under_greedy_decoding_are_only_noted():
    from evalkit.comparison.trust import check_reuse
    from evalkit.runs.run import Fingerprint

    base = {(("k", i), 0): Fingerprint(f"b{i}", bytes([i])) for i in range(50)}
    cand = {(("k", i), 0): Fingerprint(f"c{i}", bytes([i])) for i in range(50)}
    assert check_reuse(base, cand).status == "fail"
    assert check_reuse(base, cand, greedy=True).status == "note"
    # Two or three coincidences in thousands are chance, not reuse.
    few = {k: Fingerprint(v.response_id, b"x" + v.text_digest) for k, v in cand.items()}
    few[(("k", 0), 0)] = cand[(("k", 0), 0)]
    assert check_reuse(base, few).status == "pass"


def test_each_rollouts_file_is_streamed_once(suites, monkeypatch):
    """The run model's promise: validate, pairing, sampling and reuse all read one pass."""
    from evalkit.comparison.suite import compare_paths
    from evalkit.runs import run as run_model

    passes: dict[str, int] = {}
    real = run_model.iter_rollouts

    def counting(path, stats=None):
        for yielded, rollout in enumerate(real(path, stats), start=1):
            if yielded == 2:  # more than a one-line peek at the agent name
                passes[str(path)] = passes.get(str(path), 0) + 1
            yield rollout

    monkeypatch.setattr(run_model, "iter_rollouts", counting)
    doc = compare_paths(suites["base"], suites["cand"], bootstrap=200)
    assert doc["kind"] == "suite" and len(passes) == 4  # MRCR and GDPVal on both sides
    assert set(passes.values()) == {1}
