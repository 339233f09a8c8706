"""Issue 25's post-run papercuts: output that contradicted itself (compare, report,
regrade/validate) and the bundled pair's suite view (strata in text, GPQA's name and
scale). Runs come from tests/helpers/rungen.py or the bundled data in tests/data/."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from evalkit.benchmarks.mrcr.leaks import LEAK_WARN_ABOVE, leak_reading
from evalkit.checks.model import FAIL, PASS, WARN
from evalkit.checks.rules.prefix_gate import check_prefix_gate
from evalkit.comparison import trust
from helpers.rungen import add_deployment, make_items, write_mrcr_run

DATA = Path(__file__).parent / "data"
CANARY = DATA / "runs" / "mrcr-canary"
SUITE = DATA / "suite"
FAST = ("--bootstrap", "2000")


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs whose run.sub mounts no checkpoint (checkpoint="")."""
    items = make_items(30, 4, prompt_chars=600, answer_chars=(150, 400))
    base = write_mrcr_run(tmp_path / "base", items=items, seed=0, limit=30, checkpoint="")
    cand = write_mrcr_run(tmp_path / "cand", items=items, seed=1, limit=30, checkpoint="")
    return base, cand


def _trust(run_cli, base: Path, cand: Path) -> dict[str, dict]:
    code, out, err = run_cli("compare", base, cand, "--format", "json", *FAST)
    assert code in (0, 1), err
    [row] = json.loads(out)["tasks"]
    return {c["id"]: c for c in row["detail"]["trust"]}


# ---- compare: which side lacks the checkpoint --------------------------------------------


def test_checkpoint_missing_on_both_sides_says_either_side(tmp_path, run_cli):
    base, cand = _pair(tmp_path)
    note = _trust(run_cli, base, cand)["checkpoint"]
    assert note["status"] == "unverified"  # fail closed: no proof of two checkpoints
    assert note["message"] == "checkpoint path not recorded on either side; not checked"
    assert "run.sub" in note["record"]


def test_checkpoint_missing_on_one_side_names_that_side(tmp_path, run_cli):
    base, cand = _pair(tmp_path)
    add_deployment(base, "/lustre/models/base-bf16")
    note = _trust(run_cli, base, cand)["checkpoint"]
    assert note["message"] == "checkpoint path not recorded on the candidate; not checked"


def test_every_missing_value_names_its_side():
    [_, ckpt] = trust.check_provenance({"invocation_id": "a"}, {"invocation_id": "b"})
    assert "on either side" in ckpt.message
    [_, ckpt] = trust.check_provenance({"invocation_id": "a"}, {"checkpoint": "/c"})
    assert "on the baseline" in ckpt.message
    [temp] = trust.check_sampling({}, {"temperature": 1.0}, ("temperature",), (None, None))
    assert "on the baseline" in temp.message and "one side" not in temp.message


# ---- report: each not-comparable reason once ---------------------------------------------


def _failing_trust(run_cli, base: Path, cand: Path) -> list[str]:
    code, out, _ = run_cli("compare", base, cand, "--format", "json", *FAST)
    [row] = json.loads(out)["tasks"]
    assert row["verdict"] == "not_comparable"
    failing = [c["message"] for c in row["trust"] if c["status"] == "fail"]
    assert failing and set(failing) <= set(row["reasons"])  # the document keeps both
    return failing


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_report_states_each_not_comparable_reason_once(tmp_path, run_cli, fmt):
    # The bundled canary against itself: the pair a newcomer tries first.
    failing = _failing_trust(run_cli, CANARY, CANARY)
    out = tmp_path / f"report.{fmt}"
    code, _, err = run_cli("report", CANARY, CANARY, "--format", fmt, "-o", out, *FAST)
    assert code == 1, err
    page = out.read_text()
    for message in failing:
        shown = html.escape(message) if fmt == "html" else message.split(":")[0]
        assert page.count(shown) == 1, (message, fmt)


def test_suite_text_states_each_not_comparable_reason_once(run_cli):
    failing = _failing_trust(run_cli, CANARY, CANARY)
    _, out, _ = run_cli("compare", CANARY, CANARY, *FAST)
    for message in failing:
        assert out.count(message) == 1, message


# ---- the forest plot's axis ---------------------------------------------------------------


def _row(delta, ci, margin=1.0):
    return {"task": "t", "benchmark": "b", "verdict": "inconclusive", "delta": delta,
            "ci95": ci, "margin": margin}  # fmt: skip


def test_zero_width_interval_sits_inside_the_axis():
    from evalkit.render.forest import forest_svg, x_limits

    lo, hi = x_limits([_row(0.0, [0.0, 0.0])])
    assert lo < -1.0 and hi > 0.0  # the -margin tick and the point both inside the frame
    assert hi - 0.0 >= 0.1 * (hi - lo) and -1.0 - lo >= 0.05 * (hi - lo)
    # Tick labels are text in the SVG: a positive tick shows the axis runs past zero.
    svg = forest_svg([_row(0.0, [0.0, 0.0])])
    ticks = [float(t.replace("\u2212", "-")) for t in re.findall(r">(\u2212?\d+\.\d+)<", svg)]
    assert ticks and max(ticks) > 0 and min(ticks) <= -1.0


def test_axis_holds_every_interval_end_with_room():
    from evalkit.render.forest import x_limits

    rows = [_row(-3.0, [-7.5, 1.5], 2.0), _row(0.5, [-0.5, 4.0], 1.0)]
    lo, hi = x_limits(rows)
    assert lo < -7.5 and hi > 4.0


# ---- a reasoning leak: note or problem, one threshold --------------------------------------


def test_leak_reading_draws_the_line_at_the_threshold():
    at = leak_reading(5, 100)
    assert at["level"] == "note" and at["threshold"] == LEAK_WARN_ABOVE == 0.05
    assert leak_reading(6, 100)["level"] == "problem"
    assert leak_reading(0, 100)["level"] == "none"
    assert f"{LEAK_WARN_ABOVE:.0%}" in at["message"]


def test_prefix_gate_notes_a_leak_and_warns_above_the_threshold():
    note = check_prefix_gate(0.6, leak_reading(1, 20))
    assert note.status == PASS and "1 of 20 responses carry reasoning markup" in note.message
    problem = check_prefix_gate(0.6, leak_reading(3, 20))
    assert problem.status == WARN and "check the reasoning parser" in problem.message
    assert check_prefix_gate(0.1, leak_reading(3, 20)).status == FAIL  # the gate still rules


def test_validate_and_regrade_read_the_canarys_leak_alike(run_cli):
    code, out, err = run_cli("regrade", CANARY, "--format", "json")
    assert code == 0, err
    leak = json.loads(out)["reasoning_leak"]
    assert (leak["count"], leak["total"], leak["level"]) == (1, 20, "note")
    code, text, _ = run_cli("regrade", CANARY)
    assert "reasoning_leak 1" in text and f"reasoning_leak, note: {leak['message']}" in text

    code, out, err = run_cli("validate", CANARY, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "valid", err
    gate = {c["id"]: c for c in doc["checks"]}["prefix-gate"]
    assert gate["status"] == "pass" and leak["message"] in gate["message"]


def test_a_leaking_run_warns_in_validate(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, n_items=40, limit=40, leak_fraction=0.2)
    _, out, _ = run_cli("validate", task, "--format", "json")
    gate = {c["id"]: c for c in json.loads(out)["checks"]}["prefix-gate"]
    assert gate["status"] in ("warn", "fail") and "reasoning markup" in gate["message"]


# ---- the bundled pair's suite view ---------------------------------------------------------


def test_suite_text_shows_the_mrcr_strata_under_its_row(run_cli):
    code, out, _ = run_cli("compare", SUITE / "baseline", SUITE / "candidate", *FAST)
    assert code == 1
    mrcr = out.index("mrcr (nemo_gym.0):")
    block = out[mrcr : out.index("gate:")]
    assert "needle strata (points 0-100):" in block
    for needles in ("2", "4", "8"):
        assert re.search(rf"^\s+{needles} needles\s+\|?\s*\d+", block, re.M), needles


def test_simple_evals_gpqa_is_gpqa_in_points_and_takes_its_gate_margin(tmp_path, run_cli):
    gate = tmp_path / "gate.yaml"
    gate.write_text("default: {points: 1.0}\nbenchmarks:\n  gpqa: {points: 25.0}\n")
    args = ("compare", SUITE / "baseline", SUITE / "candidate", "--format", "json", *FAST)
    _, out, _ = run_cli(*args, "--gate", gate)
    rows = {r["task"]: r for r in json.loads(out)["tasks"]}
    gpqa = rows["simple_evals.gpqa_diamond.0"]
    assert gpqa["benchmark"] == "gpqa" and gpqa["scale"] == "0-1"
    assert gpqa["margin"] == 25.0 and gpqa["margin_rule"].startswith("25")
    # Points: the results.yml values are 0-1 fractions, shown x100.
    assert 50 < gpqa["base"] < 100 and 50 < gpqa["cand"] < 100
    assert gpqa["verdict"] == "no_regression"
