"""The bundled baseline/candidate pair in tests/data/suite (tests/data/suite/PROVENANCE.md).

The pair is what a newcomer compares first, so its verdict is pinned here: both sides
valid, trust checks passed, MRCR inconclusive overall at 90 items with the loss clearly
in the 8-needle stratum, GPQA (a 0-1 score compared in points) paired on its 198 items
from simple-evals' own database and inconclusive: an interval of about +-5 points (the
unpaired one from results.yml was about +-9) against a 1-point margin. The third run,
candidate-reasoning, is tested in test_simple_evals_outcomes.py.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from helpers.bundled import CONFIGS, GPQA, MRCR, task_dir
from helpers.oracle import cache_dir, pip_download

SUITE = Path(__file__).parent / "data" / "suite"
BASE, CAND = SUITE / "baseline", SUITE / "candidate"
ROOT = Path(__file__).resolve().parents[1]


def _rows(doc: dict) -> dict[str, dict]:
    return {row["task"]: row for row in doc["tasks"]}


def test_each_side_is_valid(run_cli):
    for side in (BASE, CAND):
        code, out, err = run_cli("validate", side, "--format", "json")
        assert code == 0, err
        doc = json.loads(out)
        assert doc["verdict"] == "valid", doc


def test_compare_verdict_is_inconclusive_with_the_loss_in_8_needle_items(run_cli):
    code, out, err = run_cli("compare", BASE, CAND, "--format", "json")
    assert code == 1, err  # not a pass
    doc = json.loads(out)
    assert doc["kind"] == "suite" and doc["gate"] == "inconclusive"
    rows = _rows(doc)
    assert set(rows) == {MRCR, GPQA}

    mrcr = rows[MRCR]
    assert mrcr["benchmark"] == "mrcr" and mrcr["paired"] and mrcr["n"] == 90
    assert mrcr["verdict"] == "inconclusive"
    assert mrcr["validation"] == {"base": "valid", "cand": "valid"}
    lo, hi = mrcr["ci95"]
    assert lo < -1.0 < 0 < hi and mrcr["delta"] < -5.0
    strata = mrcr["strata"]
    assert strata["8"]["ci95"][1] < 0  # the loss is established in the 8-needle items
    for needles in ("2", "4"):
        s_lo, s_hi = strata[needles]["ci95"]
        assert s_lo < 0 < s_hi, needles  # equal within noise
    assert strata["8"]["delta"] < min(strata["2"]["delta"], strata["4"]["delta"]) - 15

    gpqa = rows[GPQA]
    assert gpqa["paired"] is True and gpqa["n"] == 198 and gpqa["verdict"] == "inconclusive"
    assert (gpqa["benchmark"], gpqa["scale"], gpqa["margin"]) == ("gpqa", "0-1", 1.0)
    assert 50 < gpqa["base"] < 100 and 3 < gpqa["ci95"][1] - gpqa["delta"] < 7
    assert not gpqa["failures"]["shifted"]
    assert doc["reasons"] == ["inconclusive: gpqa, mrcr"]


def test_trust_checks_pass_on_the_pair(run_cli):
    code, out, err = run_cli(
        "compare", task_dir("baseline", MRCR), task_dir("candidate", MRCR), "--format", "json"
    )
    doc = json.loads(out)["tasks"][0]["detail"]  # one task: the suite document, detail nested
    trust = {check["id"]: check for check in doc["trust"]}
    assert trust["response-reuse"]["status"] == "pass", trust["response-reuse"]
    assert all(check["status"] != "fail" for check in trust.values()), trust
    prov = doc["provenance"]
    assert prov["base"]["invocation_id"] != prov["cand"]["invocation_id"]
    assert prov["base"]["checkpoint"].endswith("model-bf16")
    assert prov["cand"]["checkpoint"].endswith("model-nvfp4")


# ---- the configs behind the runs (issue 42) ------------------------------------------

LAUNCH_ENV = {"USER": "fake-user", "HF_TOKEN": "x"}  # what the launching shell exports


def _findings(config: Path):
    from evalkit.preflight.runner import Options, check_file

    return check_file(str(config), Options(env=dict(LAUNCH_ENV)))


@pytest.mark.parametrize("config", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_each_config_behind_the_runs_passes_preflight(config):
    findings = _findings(config)
    errors = [f"{f.line}: {f.rule} {f.message}" for f in findings if f.severity == "error"]
    assert errors == []
    assert not {"NEL401", "NEL411"} & {f.rule for f in findings}


def test_each_invocation_was_rendered_from_its_config():
    runs = sorted(SUITE.glob("*/*/*/run.sub"))
    assert len(runs) == 5  # MRCR and GPQA per side, GPQA alone for candidate-reasoning
    for run_sub in runs:
        side, task = run_sub.parts[-4], run_sub.parts[-2]
        kind = "mrcr" if task == MRCR else "gpqa"
        name = f"{side}-{kind}.yaml"
        assert (CONFIGS / name).is_file(), name
        text = run_sub.read_text()
        assert f"user_config_path: /home/fake-user/configs/{name}" in text, run_sub
        tasks = [p.name for p in run_sub.parents[1].iterdir() if p.is_dir()]
        assert tasks == [task], "one task per invocation"
        if kind == "gpqa":  # nothing of Gym's reaches the simple-evals container
            assert 'echo "" | base64 -d > pre_cmd.sh' in text, run_sub  # an empty pre_cmd
            assert "/opt/Gym" not in text, run_sub


def test_the_gpqa_harness_files_fit_the_config_that_stands_behind_them():
    import yaml

    for side in ("baseline", "candidate", "candidate-reasoning"):
        arts = task_dir(side, GPQA) / "artifacts"
        params = yaml.safe_load((arts / "run_config.yml").read_text())["config"]["params"]
        words = yaml.safe_load((arts / "results.yml").read_text())["command"].split()
        given = dict(zip(words, words[1:], strict=False))  # each flag and the word after it
        expected = {
            "--temperature": params["temperature"],
            "--top_p": params["top_p"],
            "--max_tokens": params["max_new_tokens"],
            "--num_threads": params["parallelism"],
            "--max_retries": params["max_retries"],
            "--timeout": params["request_timeout"],
        }
        for flag, value in expected.items():
            assert float(given[flag]) == float(value), (side, flag)


def test_the_old_combined_config_gets_the_shared_pre_cmd_warning(tmp_path):
    """The pair's former layout: the MRCR template with a simple-evals task beside the Gym
    one, under one evaluation.pre_cmd that installs into /opt/Gym/.venv."""
    text = (CONFIGS / "baseline-mrcr.yaml").read_text()
    assert "  pre_cmd: uv pip install --no-cache --python /opt/Gym/.venv/bin/python" in text
    combined = tmp_path / "combined.yaml"
    combined.write_text(text + "    - name: simple_evals.gpqa_diamond\n")
    hits = {f.rule: f for f in _findings(combined)}
    assert hits["NEL411"].severity == "warning"
    assert "simple_evals.gpqa_diamond" in hits["NEL411"].message
    assert "move it onto the task" in hits["NEL411"].fix
    assert hits["NEL401"].severity == "error"


@pytest.mark.slow
@pytest.mark.network
def test_the_generator_reproduces_the_pair_byte_for_byte(tmp_path):
    """Re-run tools/dev/make_bundled_pair.py (Gym's sdist, the real nel dry-run) and
    compare every file with the bundled one. pandas and orjson come with the test extra.
    Without --harness the generator reuses the bundled GPQA harness output, the per-item
    databases included, byte for byte (the harness venv is not part of the test extra;
    PROVENANCE.md gives the full command, and why a run with it matches by rows, not by
    bytes)."""
    for module in ("pandas", "orjson"):
        assert importlib.util.find_spec(module) is not None, f"the test extra provides {module}"
    sdist = pip_download(
        "nemo-gym==0.7.0",
        cache_dir("EVALKIT_GYM_SDIST_DIR"),
        "nemo_gym-0.7.0.tar.gz",
        "--no-binary",
        ":all:",
        "--ignore-requires-python",
        timeout=900,
    )
    import subprocess

    out = tmp_path / "suite"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools/dev/make_bundled_pair.py"),
            "--sdist",
            str(sdist),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    bundled = sorted(p.relative_to(SUITE) for p in SUITE.rglob("*") if p.is_file())
    made = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    runs = ("baseline", "candidate", "candidate-reasoning", "configs")
    assert [p for p in made] == [p for p in bundled if p.parts[0] in runs]
    for rel in made:
        assert (out / rel).read_bytes() == (SUITE / rel).read_bytes(), rel
