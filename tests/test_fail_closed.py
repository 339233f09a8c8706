"""The gate passes only what it proved (issue 47): each case the issue measured on main
5089018, on copies of the bundled pair (tests/helpers/suite_edits.py) or generated runs."""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.comparison import trust
from evalkit.comparison.fingerprint import UNVERIFIED, diff_fingerprints
from evalkit.comparison.task_trust import TrustSide, all_checks
from evalkit.runs.configview import FieldValue
from evalkit.runs.fingerprint import Fingerprint
from evalkit.runs.run import Fingerprint as Reply
from helpers.rungen import make_items, write_mrcr_run
from helpers.suite_edits import (
    BASE_GPQA,
    GPQA,
    MRCR,
    copy_sides,
    drop_item_records,
    lengthen_replies,
    map_rollouts,
    sub_text,
)

WIDE = ("--margin", "30", "--bootstrap", "200")


def _doc(run_cli, base: Path, cand: Path, *extra: str) -> tuple[int, dict]:
    code, out, err = run_cli("compare", base, cand, "--format", "json", *WIDE, *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


def _row(doc: dict, benchmark: str) -> dict:
    [row] = [r for r in doc["tasks"] if r["benchmark"] == benchmark]
    return row


def _results_only(tmp_path: Path) -> tuple[Path, Path]:
    """The bundled GPQA pair with neither per-item store nor response cache: results.yml."""
    base, cand = copy_sides(tmp_path)
    for task in (base / BASE_GPQA, cand / GPQA):
        drop_item_records(task)
    return base, cand


# ---- 1. fail closed ---------------------------------------------------------------------


def test_two_results_only_runs_with_no_response_record_are_unverified(run_cli, tmp_path):
    base, cand = _results_only(tmp_path)
    code, doc = _doc(run_cli, base, cand)
    gpqa = _row(doc, "gpqa")
    assert gpqa["verdict"] == "unverified" and doc["gate"] == "unverified" and code == 1
    assert gpqa["verdict_if_verified"] == "no_regression"
    [reuse] = [c for c in gpqa["trust"] if c["id"] == "response-reuse"]
    assert reuse["status"] == "unverified" and "use_caching" in reuse["record"]

    code, doc = _doc(run_cli, base, cand, "--accept", "response-reuse")
    assert doc["gate"] == "pass" and code == 0
    assert any("accepted without evidence" in r and "response-reuse" in r for r in doc["reasons"])
    assert doc["accepted"] == ["response-reuse"]


def test_an_unknown_accept_name_is_a_usage_error(run_cli, tmp_path):
    code, _, err = run_cli("compare", tmp_path, tmp_path, "--accept", "reuse")
    assert code == 2 and "--accept reuse: not a check" in err and "Traceback" not in err


def test_a_one_sided_gap_in_the_fingerprint_is_unverified_and_names_the_side():
    def fingerprint(**fields) -> Fingerprint:
        return Fingerprint({k: FieldValue(v, "x") for k, v in fields.items()})

    base = fingerprint(temperature=1.0, system_prompt="none")
    cand = fingerprint(temperature=1.0)
    [gap] = [d for d in diff_fingerprints(base, cand) if d.field == "system_prompt"]
    assert gap.consequence == UNVERIFIED and "on the candidate" in gap.reason


def _reply(text: str) -> Reply:
    """A non-trivial reply without a response id, as an item store keeps it."""
    return Reply(None, text.encode() * 64)


def _side(path: Path, **kw) -> TrustSide:
    return TrustSide(path=path, provenance={}, sampling={"temperature": 1.0, "top_p": 1.0}, **kw)


def test_reuse_with_no_request_in_common_is_not_a_pass(tmp_path):
    base = _side(tmp_path / "b", fingerprints={"a": _reply("x")})
    cand = _side(tmp_path / "c", fingerprints={"b": _reply("y")})
    [reuse] = [c for c in all_checks(base, cand) if c.id == "response-reuse"]
    assert reuse.status == trust.UNVERIFIED and "no request in common" in reuse.message


def test_harness_versions_compare_by_the_whole_reference(tmp_path):
    """Issue 52: simple-evals 26.03 against 25.11 is another harness, whatever the name."""
    image = "nvcr.io/nvidia/eval-factory/simple-evals"
    base = _side(tmp_path / "b", harness_version=f"{image}:26.03")
    cand = _side(tmp_path / "c", harness_version=f"{image}:25.11")
    [check] = [c for c in all_checks(base, cand) if c.id == "harness-version"]
    assert check.status == trust.FAIL and "25.11" in check.message
    [accepted] = [
        c
        for c in all_checks(base, cand, frozenset({"harness-version"}))
        if c.id == "harness-version"
    ]
    assert accepted.status == trust.ACCEPTED


# ---- 2. one task record -----------------------------------------------------------------


def test_a_gym_run_sent_at_two_temperatures_fails_that_check_without_a_false_note(
    run_cli, tmp_path
):
    items = make_items(40, 5, prompt_chars=600, answer_chars=(150, 400))
    base = write_mrcr_run(tmp_path / "b", items=items, seed=0, limit=40)
    cand = write_mrcr_run(tmp_path / "c", items=items, seed=1, limit=40)

    def half(i: int, rec: dict) -> dict:
        rec["responses_create_params"]["temperature"] = 1.0 if i % 2 else 0.0
        return rec

    map_rollouts(cand, half)
    _, doc = _doc(run_cli, base, cand)
    row = doc["tasks"][0]
    temps = [c for c in row["trust"] if c["id"] == "sampling-temperature"]
    assert [c["status"] for c in temps] == ["fail"]
    assert "several temperature values (0, 1)" in temps[0]["message"]
    assert not any("not recorded" in c["message"] or "not readable" in c["message"] for c in temps)
    assert row["verdict"] == "not_comparable"


def test_a_record_that_disagrees_with_the_harness_copy_fails_naming_both(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    config = cand / GPQA / "artifacts" / "run_config.yml"
    sub_text(config, r"\n    temperature: 1\.0\n", "\n    temperature: 0.6\n")
    _, doc = _doc(run_cli, base, cand)
    gpqa = _row(doc, "gpqa")
    [conflict] = [c for c in gpqa["trust"] if c["id"] == "record-agreement"]
    assert conflict["status"] == "fail" and conflict["field"] == "temperature"
    assert "artifacts/run_config.yml" in conflict["message"]
    assert "artifacts/results.yml" in conflict["message"]


# ---- 3. declared scales only ------------------------------------------------------------


def test_an_undeclared_scale_is_not_compared_in_points(run_cli, tmp_path):
    """0.80 -> 0.40 of a metric evalkit knows no scale for: no 'no_regression' at a margin
    in points (the issue's interval [-0.49, -0.31] passed a 1-point margin)."""
    base, cand = _results_only(tmp_path)
    for task in (base / BASE_GPQA, cand / GPQA):
        sub_text(task / "artifacts" / "results.yml", r"\n        score:\n", "\n        house:\n")
    sub_text(cand / GPQA / "artifacts" / "results.yml", r"value: 0\.712121\d*", "value: 0.40")
    code, doc = _doc(run_cli, base, cand, "--accept", "response-reuse")
    gpqa = _row(doc, next(r["benchmark"] for r in doc["tasks"] if r["benchmark"] != "mrcr"))
    assert gpqa["verdict"] in ("unverified", "regression") and code == 1
    assert gpqa["verdict"] != "no_regression"


# ---- 4. independence from what the harness keeps per item -------------------------------


def test_the_baselines_item_store_in_the_candidate_is_reuse(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    lengthen_replies(base / BASE_GPQA, "base")
    store = "artifacts/gpqa_diamond/cache/cache.sqlite/cache.db"
    (cand / GPQA / store).write_bytes((base / BASE_GPQA / store).read_bytes())
    _, doc = _doc(run_cli, base, cand)
    gpqa = _row(doc, "gpqa")
    assert gpqa["verdict"] == "not_comparable"
    [reuse] = [c for c in gpqa["trust"] if c["id"] == "response-reuse"]
    assert reuse["status"] == "fail" and "item store" in reuse["message"]
    assert reuse["identical_nontrivial"] == 198


# ---- 5. gate and reference keys ----------------------------------------------------------


def test_gate_and_reference_keys_by_the_launchers_task_name_apply(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    gate = tmp_path / "gate.yaml"
    gate.write_text("default: {points: 30}\nbenchmarks:\n  gpqa_diamond: {points: 0.5}\n")
    ref = tmp_path / "ref.yaml"
    ref.write_text("benchmarks:\n  simple_evals.gpqa_diamond: {score: 90.0, tolerance: 1}\n")
    code, doc = _doc(run_cli, base, cand, "--gate", str(gate), "--reference", str(ref))
    gpqa = _row(doc, "gpqa")
    assert gpqa["margin"] == 0.5 and gpqa["verdict"] == "inconclusive"
    assert gpqa["reference"]["status"] == "far"
    assert doc["gate"] == "not_comparable" and code == 1


def test_a_gate_key_that_matches_no_task_is_a_usage_error(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    gate = tmp_path / "gate.yaml"
    gate.write_text("benchmarks:\n  gpqa_diamnd: {points: 0.5}\n")
    code, _, err = run_cli("compare", base, cand, "--gate", gate, *WIDE)
    assert code == 2 and "'gpqa_diamnd'" in err and "gpqa" in err and "mrcr" in err
    assert str(gate) in err and "Traceback" not in err


# ---- 6. pairing by identity -------------------------------------------------------------


def test_the_same_task_at_another_launcher_index_pairs(run_cli, tmp_path):
    base, cand = _results_only(tmp_path)
    for task in (base / BASE_GPQA, cand / GPQA):
        sub_text(task / "artifacts" / "results.yml", r"\n        score:\n", "\n        house:\n")
    (cand / GPQA).rename((cand / GPQA).with_name("simple_evals.gpqa_diamond.1"))
    _, doc = _doc(run_cli, base, cand, "--accept", "response-reuse", "--accept", "scale")
    names = [r["benchmark"] for r in doc["tasks"]]
    assert len(names) == 2 and all(r["verdict"] != "not_comparable" for r in doc["tasks"]), names


def test_a_renamed_metric_is_not_comparable_naming_both(run_cli, tmp_path):
    base, cand = _results_only(tmp_path)
    sub_text(
        cand / GPQA / "artifacts" / "results.yml", r"\n        score:\n", "\n        score_10:\n"
    )
    code, doc = _doc(run_cli, base, cand)
    [row] = [r for r in doc["tasks"] if r["benchmark"] != "mrcr"]
    assert row["verdict"] == "not_comparable" and code == 1
    assert any("score_micro" in r and "score_10" in r for r in row["reasons"]), row["reasons"]


# ---- 8. advice follows the recipe --------------------------------------------------------


def test_an_inconclusive_scicode_row_asks_for_runs_not_repeats():
    from evalkit.render.compare_next import next_steps

    doc = {
        "gate": "inconclusive",
        "paths": {"base": "b", "cand": "c"},
        "gate_file": None,
        "default_margin": "1 points",
        "tasks": [{"benchmark": "scicode", "task": "ns_scicode.0", "verdict": "inconclusive"}],
    }
    steps = " ".join(next_steps(doc))
    assert "more independent runs" in steps and "num_repeats stays 1" in steps
    assert "or with more repeats" not in steps


# ---- issue 49: verbosity beside the verdict ---------------------------------------------


def test_a_candidate_thirty_percent_more_verbose_is_flagged_and_the_pair_is_not(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    _, doc = _doc(run_cli, base, cand)
    assert {r["verbosity"]["status"] for r in doc["tasks"]} == {"ok"}

    metrics = cand / GPQA / "artifacts" / "eval_factory_metrics.json"
    # 1.3 x the baseline's 28.85 (the candidate's own was 28.89)
    sub_text(metrics, r'"avg_completion_tokens": 28\.89', '"avg_completion_tokens": 37.505')

    def longer(_i: int, rec: dict) -> dict:
        usage = (rec.get("response") or {}).get("usage")
        if usage:
            usage["output_tokens"] = round(usage["output_tokens"] * 1.3)
        return rec

    map_rollouts(cand / MRCR, longer)
    code, doc = _doc(run_cli, base, cand)
    rows = {r["benchmark"]: r for r in doc["tasks"]}
    assert rows["gpqa"]["verbosity"]["status"] == "longer"
    assert abs(rows["gpqa"]["verbosity"]["relative_change"] - 0.3) < 1e-3
    assert rows["mrcr"]["verbosity"]["status"] == "longer"
    assert "not an accuracy change" in rows["gpqa"]["verbosity"]["message"]
    assert rows["gpqa"]["verdict"] == "no_regression"  # a cost, never the verdict
    assert any(r.startswith("verbosity beyond 5 %") for r in doc["reasons"])
    _, note, _ = run_cli("compare", base, cand, "--format", "markdown", *WIDE)
    assert "### Verbosity" in note and "**FLAGGED**" in note
    _, page, _ = run_cli("report", base, cand, "--format", "markdown", *WIDE)
    assert "- verbosity: **flagged**: the candidate answers 30% longer" in page


# ---- what the mutation tier found unguarded (tests/mutation/README.md) -------------------


def test_a_gap_names_the_side_it_is_on():
    assert trust.missing_where(None, None) == "on either side"
    assert trust.missing_where(None, "x") == "on the baseline"
    assert trust.missing_where("x", None) == "on the candidate"


def test_no_validation_on_either_side_adds_no_validate_check(tmp_path):
    checks = all_checks(_side(tmp_path / "b"), _side(tmp_path / "c"))
    assert not [c for c in checks if c.id.startswith("validate-")]
    one = all_checks(_side(tmp_path / "b", validation=("valid", [])), _side(tmp_path / "c"))
    [base, cand] = [c for c in one if c.id.startswith("validate-")]
    assert base.status == trust.PASS and cand.status == trust.UNVERIFIED


def test_two_agents_sets_that_differ_neither_containing_the_other_are_another_variant(tmp_path):
    from evalkit.comparison.items import compare_gym
    from evalkit.comparison.sides import GymSide

    def side(path: Path, agents: set[str]) -> GymSide:
        items = {("p", 2, "a"): 1.0, ("q", 4, "b"): 0.0}
        return GymSide(path, None, agents, items, 0, 2, {"temperature": 1.0, "top_p": 1.0}, None)

    result = compare_gym(
        side(tmp_path / "b", {"mrcr_n2", "mrcr_n4"}),
        side(tmp_path / "c", {"mrcr_n2", "mrcr_n8"}),
        bootstrap=100,
    )
    assert result.verdict == "not_comparable"
    assert any("variant differs" in r for r in result.reasons)
