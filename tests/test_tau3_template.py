"""recipes/examples/gym/example_tau3_banking.yaml: the real launcher, the real renderer,
and the run shape read from NeMo Gym at the pin (evalkit.benchmarks.tau3.facts)."""

from __future__ import annotations

import base64
import re
import shlex
import subprocess

import pytest
import yaml

from evalkit.benchmarks.tau3 import facts
from fixtures.gym import tau3_template as tpl
from helpers.nel import blank_paths, dry_run


@pytest.fixture(scope="module")
def filled_dry_run():
    return dry_run(tpl.TEMPLATE, tpl.FILLED, tpl.USER_ENV)


def _sbatch_script(result) -> str:
    (script,) = result.scripts
    return script.split("----------- Secrets (redacted)")[0]


def _deployment_command(script: str) -> str:
    encoded = re.search(r'echo "([A-Za-z0-9+/=]+)" \| base64 -d > deployment_cmd\.sh', script)
    assert encoded, "no deployment_cmd.sh in run.sub"
    return base64.b64decode(encoded.group(1)).decode()


def _rollout_words(rendered: str) -> list[str]:
    line = next(x for x in rendered.splitlines() if x.startswith("ng_e2e_collect_rollouts "))
    return shlex.split(line)


# -- the real nel 0.2.6 launcher ----------------------------------------------------------


def test_every_blank_is_known_to_the_tests():
    assert sorted(blank_paths(tpl.TEMPLATE)) == sorted(tpl.FILLED)


@pytest.mark.launcher
def test_bare_template_is_refused_until_blanks_are_filled():
    result = dry_run(tpl.TEMPLATE, None, tpl.USER_ENV)
    assert result.returncode != 0
    assert "Missing mandatory value" in result.stdout + result.stderr


@pytest.mark.launcher
def test_filled_template_passes_the_dry_run(filled_dry_run):
    assert filled_dry_run.returncode == 0, filled_dry_run.stderr[-3000:]
    assert len(filled_dry_run.scripts) == 1


@pytest.mark.launcher
def test_tool_calling_and_the_full_context_reach_vllm(filled_dry_run, tmp_path):
    script = _sbatch_script(filled_dry_run)
    path = tmp_path / "run.sub"
    path.write_text(script)
    check = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    srun = _deployment_command(script)
    for flag in (
        "--enable-auto-tool-choice",
        "--tool-call-parser hermes",
        "--max-model-len 262144",
        "--tensor-parallel-size 8",
        "--reasoning-parser nemotron_v3",
        "--gpu-memory-utilization 0.9",
    ):
        assert flag in srun, flag
    assert "#SBATCH --gres gpu:8" in script


@pytest.mark.launcher
def test_the_user_simulator_key_is_a_secret_not_a_literal(filled_dry_run):
    out = filled_dry_run.stdout
    assert tpl.USER_ENV["INFERENCE_API_KEY"] not in out
    for name in facts.USER_ENV:
        assert name in out  # mapped into the task's environment


# -- nemo-evaluator's own renderer --------------------------------------------------------


def test_rollouts_fill_the_user_simulator_from_the_environment():
    words = _rollout_words(tpl.render_command())
    for field, var in facts.USER_OVERRIDES.items():
        # shlex keeps the quotes out: bash expands the variable inside the container.
        assert f"{facts.user_override(field)}=${var}" in words, field


def test_canary_limit_and_full_run():
    assert "++limit=5" in _rollout_words(tpl.render_command(limit_samples=5))
    rendered = tpl.render_command()
    assert not any(w.startswith("++limit") for w in _rollout_words(rendered))
    assert "{{" not in rendered and "{%" not in rendered


# -- the run shape at the pin --------------------------------------------------------------


def test_benchmark_config_pin_and_declared_repeats():
    gym = tpl.gym()
    prep = tpl.config_paths(gym["data_prep_params"])
    rollout = tpl.config_paths(gym["collect_rollout_params"])
    assert prep == rollout and prep[-1] == facts.BENCHMARK_CONFIG
    assert gym["install_on_the_fly"]["commit"] == facts.GYM_PIN
    for key in ("data_prep_params", "collect_rollout_params", "common_params"):
        assert "num_repeats" not in gym[key], key  # the config's 5 repeats stand
        assert "#" not in gym[key], key
    assert "#" not in tpl.load()["deployment"]["command"]


def test_launcher_level_settings():
    cfg = tpl.load()
    assert "env_vars" not in cfg
    ev = cfg["evaluation"]["env_vars"]
    for name in facts.USER_ENV:
        assert ev[name] == f"host:{name}"
    assert ev["NEL_INVOCATION_ID"] == "runtime:NEL_INVOCATION_ID"
    assert isinstance(yaml.safe_load(tpl.raw_text())["execution"]["walltime"], str)
    (task,) = cfg["evaluation"]["tasks"]
    assert task["name"] == "nemo_gym"
    assert "export" not in cfg and "auto_export" not in cfg["execution"]
    adapter = cfg["evaluation"]["nemo_evaluator_config"]["target"]["api_endpoint"]
    assert adapter["adapter_config"]["use_caching"] is False


def test_recipe_names_the_pin_and_the_score_key():
    text = tpl.RECIPE.read_text()
    assert facts.GYM_PIN in text
    assert facts.AGENT in text and facts.SCORE_METRIC in text
    assert str(facts.EXPECTED_ROLLOUTS) in text
