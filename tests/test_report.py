"""`evalkit report`: the page a release reviewer reads, checked in a real browser.

The HTML is loaded by headless Chromium from Debian's `chromium` package (installed by
.ci/run); the test reads back what it rendered: the DOM (`--dump-dom`) and a screenshot
whose pixels must show the forest plot's own colours.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.rungen import make_items
from test_suite_compare import ACCEPT_GAPS, GATE, make_suite

FAST = ("--bootstrap", "1000")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    items = make_items(120, 11, prompt_chars=600, answer_chars=(150, 400))
    base = make_suite(root / "base", items, seed=0, checkpoint="/ckpt/model-bf16")
    cand = make_suite(
        root / "cand", items, seed=2, checkpoint="/ckpt/model-nvfp4", skill_by_needles={8: 0.2}
    )
    gate = root / "gate.yaml"
    gate.write_text(GATE)
    return root, base, cand, gate


@pytest.fixture(scope="module")
def html_report(pair):
    from evalkit.cli import main

    root, base, cand, gate = pair
    out = root / "report.html"
    # The generated suites record no response cache or config for GPQA and GDPVal: their
    # gaps are accepted here, so those rows draw as passing (and the page says so).
    args = ["report", str(base), str(cand), "--gate", str(gate), "-o", str(out), *FAST]
    code = main([*args, *ACCEPT_GAPS])
    assert code == 1  # the 8-needle loss fails the gate
    return out


def test_html_is_self_contained(html_report):
    page = html_report.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page and "<img" not in page
    # Namespace names in the SVG are identifiers, never fetched; nothing else points out.
    outside = re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert outside == [] and "url(http" not in page and "@import" not in page
    assert page.count("<svg") == 1 and 'id="forest"' in page


def test_report_has_every_section(html_report):
    page = html_report.read_text()
    for text in (
        "Gate:",
        ">fail<",
        "MRCR needle strata",
        "8 needles",
        "evalkit validate: baseline <b>valid</b>",
        "response-reuse",
        "/ckpt/model-nvfp4",
        "baked-in 0.2.0rc0",
        "results.yml only",
    ):
        assert text in page, text


def test_markdown_pastes_as_a_table(run_cli, pair):
    _, base, cand, gate = pair
    code, out, err = run_cli("report", base, cand, "--gate", gate, "--format", "markdown", *FAST)
    assert code == 1, err
    assert out.startswith("## Release comparison: gate **fail**")
    rows = [line for line in out.splitlines() if line.startswith("| nemo_gym.0 | mrcr |")]
    assert len(rows) == 1 and "**regression**" in rows[0]
    assert "| 8 | 40 |" in out  # the strata table of the MRCR task
    assert "| checkpoint | `/ckpt/model-bf16` | `/ckpt/model-nvfp4` |" in out
    # The forest plot in characters, in a code block: the regression's whole interval
    # lies left of zero, on the same symmetric scale as the header's end labels.
    plot = out.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    (mrcr,) = [line for line in plot if line.startswith("mrcr (nemo_gym.0)")]
    axis = mrcr[mrcr.index("[") + 1 : mrcr.index("]")]
    assert len(axis) == 41 and axis[20] == "|" and "o" in axis[:20] and "=" not in axis[21:]
    assert mrcr.endswith("regression")
    assert plot[-1].strip().startswith("o delta, = 95% CI")


def test_text_forest_plot_marks_each_part():
    from evalkit.render.release_report import forest_text

    rows = [
        {"task": "t.0", "benchmark": "b", "delta": 1.0, "ci95": [-1.0, 3.0], "margin": 2.0,
         "verdict": "inconclusive"},
        {"task": "t.1", "benchmark": "b", "delta": None, "ci95": [None, None], "margin": None,
         "verdict": "not_comparable"},
    ]  # fmt: skip
    header, first, second, legend = forest_text(rows, width=9).splitlines()
    # scale 3 points over 4 columns a side: -2 -> column 1 (rounded from 1.33), -1 -> 3,
    # 0 -> 4, +1 -> 5, +3 -> 8.
    assert first.split("[")[1].split("]")[0] == " ! =|o===" and "+1.00 [-1.00, +3.00]" in first
    assert second.split("[")[1].split("]")[0] == "    |    " and "n/a" in second
    assert header.strip() == "" and legend.endswith("axis -3.00 to +3.00 points")
    wide = forest_text(rows).splitlines()[0].strip()  # 41 columns: the labels fit
    assert wide.startswith("-3.00") and wide.endswith("+3.00") and " 0 " in wide


def test_json_is_the_compare_suite_document(run_cli, pair):
    _, base, cand, gate = pair
    _, compared, _ = run_cli("compare", base, cand, "--gate", gate, "--format", "json", *FAST)
    _, reported, _ = run_cli("report", base, cand, "--gate", gate, "--format", "json", *FAST)
    assert json.loads(compared) == json.loads(reported)


def test_text_format_needs_an_output_file(run_cli, pair):
    _, base, cand, _ = pair
    code, out, err = run_cli("report", base, cand)
    assert code == 2 and out == "" and "-o FILE" in err and err.count("\n") == 1


def _chromium(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (.ci/run installs it)")
def test_chromium_renders_the_plot(html_report, tmp_path):
    url = html_report.resolve().as_uri()
    shot = tmp_path / "shot.png"
    # One launch: headless Chromium writes the screenshot and prints the DOM it built.
    dom = _chromium(
        "--window-size=1200,1400", f"--screenshot={shot}", "--dump-dom", url, cwd=tmp_path
    )
    assert dom.returncode == 0 and shot.is_file(), dom.stderr[-2000:]
    # What the browser built: the inline SVG with its tick labels as text, and the table.
    assert re.search(r'<figure id="forest"><svg', dom.stdout)
    assert "mrcr (nemo_gym.0)" in dom.stdout and "gdpval (nemo_gym.1)" in dom.stdout
    assert "regression" in dom.stdout

    from matplotlib import image

    pixels = (image.imread(str(shot))[..., :3] * 255).round()

    def count(hex_colour: str) -> int:
        rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
        return int((abs(pixels - rgb).max(axis=-1) <= 12).sum())

    # Colours only the plot uses: the regression bar and margin ticks, the passing bars.
    assert count("#d62728") > 100
    assert count("#2ca02c") > 100


def test_the_page_shows_each_accepted_gap(html_report):
    page = html_report.read_text()
    assert '<span class="mark-accepted">accepted</span>' in page
    assert "accepted with --accept response-reuse" in page


@pytest.mark.parametrize(
    "text, shown",
    [
        ("gpqa (simple_evals.gpqa_diamond)", "gpqa (simple_evals.gpqa_diamond)"),
        ("x" * 48, "x" * 48),  # at the limit: whole
        ("x" * 49, "x" * 47 + "\u2026"),  # past it: cut, and marked as cut
    ],
)
def test_a_plot_label_is_cut_to_48_characters(text, shown):
    """The forest and outcome plots' tick labels; the table keeps the whole name."""
    from evalkit.render.forest import axis_label

    assert axis_label(text) == shown
