"""NEL411: a Gym-only `evaluation.pre_cmd` (/opt/Gym, ng_*, Gym's uv) and the tasks it
reaches, on the shipped AA template (no Gym task: an error) and beside a Gym task."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.preflight.runner import Options, check_file

from .conftest import FIXTURE_ENV

AA = Path(__file__).resolve().parents[2] / "recipes" / "examples" / "example_eval.yaml"
ANCHOR = "evaluation:\n  env_vars:\n"
AA_TASKS = ("ns_gpqa", "ns_hle_aa", "ns_ifbench", "ns_scicode", "nemo_skills.ns_omniscience")


def _aa_with(pre_cmd: str, tmp_path: Path):
    text = AA.read_text(encoding="utf-8")
    assert text.count(ANCHOR) == 1
    path = tmp_path / "aa.yaml"
    path.write_text(text.replace(ANCHOR, f"evaluation:\n  pre_cmd: {pre_cmd}\n  env_vars:\n"))
    found = check_file(str(path), Options(env=dict(FIXTURE_ENV), template=True))
    return [f for f in found if f.rule == "NEL411"]


@pytest.mark.parametrize(
    "pre_cmd",
    [
        "uv pip install --python /opt/Gym/.venv/bin/python tiktoken",
        "cd /opt/Gym && git log -1",
        "ng_prepare_benchmark +config_paths=[x.yaml]",
        "uv pip install tiktoken",
    ],
)
def test_a_gym_step_in_a_config_without_a_gym_task_is_an_error(tmp_path, pre_cmd):
    (finding,) = _aa_with(pre_cmd, tmp_path)
    assert finding.severity == "error"
    assert "no Gym task" in finding.message
    assert all(name in finding.message for name in AA_TASKS)  # every task it reaches


@pytest.mark.parametrize("pre_cmd", ["pip install tiktoken", "'echo ok  # uv pip install x'"])
def test_a_step_any_image_runs_is_quiet(tmp_path, pre_cmd):
    assert not _aa_with(pre_cmd, tmp_path)  # the second one's uv is a bash comment
