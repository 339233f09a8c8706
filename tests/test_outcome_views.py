"""status and the release report show the same per-item outcome counts.

The runs are the lm-eval fixtures of tests/data/outcomes (real nemo-evaluator 0.2.8 with
nvidia-lm-eval 26.3 against a loopback stub, tools/dev/lm_eval_outcomes.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.render.outcomes import summary_line
from evalkit.render.release_report import render_html, render_markdown
from evalkit.runs.run import load_runs

DATA = Path(__file__).resolve().parent / "data"
LM_EVAL = DATA / "outcomes" / "lm_eval.0"
FAILED = DATA / "outcomes" / "lm_eval_failed.0"
SUITE = DATA / "suite"
# Unparsed answers are the model's own, listed apart from the failures (issue 37, item 6).
COUNTS = "20 items: 8 scored as answers, 4 unparsed, 8 failed (truncated 4, reasoning_only 4)"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_status_prints_the_outcome_counts_of_a_finished_task(run_cli):
    code, out, err = run_cli("status", str(LM_EVAL))
    assert code == 0, err
    assert f"outcomes: {COUNTS}; lm_eval, served-model/samples_evalkit_tiny_math_" in out
    assert "run failure: truncated x4: artifacts/eval_factory_metrics.json" in out


def test_status_json_carries_the_same_document(run_cli):
    code, out, _ = run_cli("status", str(LM_EVAL), "--format", "json")
    [task] = json.loads(out)["tasks"]
    assert task["outcomes"]["by_outcome"] == {
        "reasoning_only": 4,
        "scored": 8,
        "truncated": 4,
        "unparsed": 4,
    }


def test_status_names_the_run_failures_of_an_aborted_task(run_cli):
    _code, out, _ = run_cli("status", str(FAILED), "--stale-after", "0.001")
    assert "outcomes: no per-item data written" in out
    assert "run failure: missing x1: artifacts/results.yml absent" in out
    assert "run failure: endpoint_error x5: artifacts/eval_factory_metrics.json" in out
    assert "maximum context length" in out


@pytest.fixture(scope="module")
def suite_doc():
    """The bundled pair's compare document with the lm-eval fixture's counts put on its
    GPQA row, as comparison/ carries them (row["outcomes"][side])."""
    from evalkit.comparison.suite import compare_paths

    doc = compare_paths(SUITE / "baseline", SUITE / "candidate", bootstrap=200)
    counts = task_outcomes(load_runs(LM_EVAL)[0]).as_dict()
    for row in doc["tasks"]:
        if row["benchmark"] != "mrcr":
            row["outcomes"] = {"base": counts, "cand": counts}
    return doc


def test_report_bars_and_markdown_say_what_status_says(suite_doc):
    page = render_html(suite_doc)
    assert 'id="outcomes"' in page and page.count("<svg") == 2
    assert summary_line(task_outcomes(load_runs(LM_EVAL)[0]).as_dict()) in page
    md = render_markdown(suite_doc)
    assert "### Items by outcome" in md and COUNTS in md


def test_no_outcomes_no_section(suite_doc):
    plain = {
        **suite_doc,
        "tasks": [{k: v for k, v in r.items() if k != "outcomes"} for r in suite_doc["tasks"]],
    }
    assert 'id="outcomes"' not in render_html(plain)
    assert "Items by outcome" not in render_markdown(plain)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian's chromium) not found")
def test_chromium_draws_the_bars(suite_doc, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render_html(suite_doc))
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    assert 'id="outcomes"' in dom and "share of items" in dom


def test_compare_rows_carry_the_counts_the_report_draws():
    # No hand-filled counts: compare's own GPQA row (simple-evals items) feeds the bars.
    from evalkit.comparison.suite import compare_paths

    doc = compare_paths(SUITE / "baseline", SUITE / "candidate-reasoning", bootstrap=200)
    page = render_html(doc)
    assert 'id="outcomes"' in page
    assert "reasoning_only 53" in page
