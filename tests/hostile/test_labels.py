"""Issue 22 item 8 (labels): a task or agent name from run data is drawn as text, never
parsed as matplotlib math text, and the Markdown and HTML reports escape its HTML."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from evalkit.render.release_report import render_html, render_markdown

HOSTILE = [
    r"$\undefinedmacro{x}$",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a | b `c` [l](javascript:alert(1))",
    "x\n```\n<script>y</script>",
]


@pytest.fixture
def document(run_cli, canary, tmp_path):
    cand = tmp_path / "cand"
    shutil.copytree(canary, cand)
    code, out, err = run_cli("report", canary, cand, "--bootstrap", "200", "--format", "json")
    assert code in (0, 1), err
    doc = json.loads(out)
    assert doc["tasks"]
    return doc


def _hostile(doc, name):
    for row in doc["tasks"]:
        row["task"] = name
        row["benchmark"] = name
        row.setdefault("reasons", []).append(name)
    return doc


@pytest.mark.parametrize("name", HOSTILE)
def test_html_draws_and_escapes(document, name):
    page = render_html(_hostile(document, name), title=name)
    assert "<script>" not in page and "<img " not in page
    if name.startswith("$"):
        assert "undefinedmacro" in page  # drawn as its own text in the SVG


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_escapes(document, name):
    text = render_markdown(_hostile(document, name), title=name)
    fences = re.findall(r"^```", text, flags=re.M)
    assert len(fences) == 2  # the forest plot's block: a label cannot close it early
    prose = re.sub(r"^```text\n.*?^```$", "", text, flags=re.M | re.S)
    assert "<script>" not in prose and "<img" not in prose
    assert not re.search(r"(?<!\\)\]\(javascript:", prose)


def test_cli_report_with_a_math_task_name(run_cli, canary, tmp_path):
    """The whole CLI path: a run whose task directory is named like math text."""
    cand = tmp_path / "cand"
    shutil.copytree(canary, cand)
    for root in (canary, cand):
        (root / "nemo_gym.0").rename(root / "$\\undefinedmacro{x}$.0")
    out = tmp_path / "r.html"
    code, _, err = run_cli("report", canary, cand, "--bootstrap", "200", "-o", out)
    assert "internal error" not in err
    assert code in (0, 1, 2)
