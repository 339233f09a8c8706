"""recipes/examples/gym/example_mrcr.yaml: the real launcher, the real renderer, the rules."""

from __future__ import annotations

import base64
import re
import shlex
import subprocess

import pytest
import yaml

from evalkit.benchmarks.mrcr.variants import GYM_PIN, VARIANTS
from fixtures.gym import mrcr_template as tpl
from helpers.nel import blank_paths, dry_run


@pytest.fixture(scope="module")
def filled_dry_run():
    return dry_run(tpl.TEMPLATE, tpl.FILLED)


def _sbatch_script(result) -> str:
    """The run.sub body alone: the dry-run prints the redacted .secrets.env after it."""
    (script,) = result.scripts
    return script.split("----------- Secrets (redacted)")[0]


def _deployment_command(script: str) -> str:
    """The vLLM command, which run.sub carries base64-encoded into deployment_cmd.sh."""
    encoded = re.search(r'echo "([A-Za-z0-9+/=]+)" \| base64 -d > deployment_cmd\.sh', script)
    assert encoded, "no deployment_cmd.sh in run.sub"
    return base64.b64decode(encoded.group(1)).decode()


# -- the real nel 0.2.6 launcher ----------------------------------------------------------


def test_every_blank_is_known_to_the_tests():
    assert sorted(blank_paths(tpl.TEMPLATE)) == sorted(tpl.FILLED)


@pytest.mark.launcher
def test_bare_template_is_refused_until_blanks_are_filled():
    result = dry_run(tpl.TEMPLATE)
    assert result.returncode != 0
    assert "Missing mandatory value" in result.stdout + result.stderr


@pytest.mark.launcher
def test_filled_template_passes_the_dry_run(filled_dry_run):
    assert filled_dry_run.returncode == 0, filled_dry_run.stderr[-3000:]
    assert len(filled_dry_run.scripts) == 1


@pytest.mark.launcher
def test_rendered_script_is_valid_bash_without_placeholders(filled_dry_run, tmp_path):
    script = _sbatch_script(filled_dry_run)
    path = tmp_path / "run.sub"
    path.write_text(script)
    check = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    for pattern in tpl.PLACEHOLDER_PATTERNS:
        assert not pattern.search(script), pattern.search(script).group(0)


@pytest.mark.launcher
def test_every_deployment_setting_reaches_vllm(filled_dry_run):
    script = _sbatch_script(filled_dry_run)
    srun = _deployment_command(script)
    for flag in (
        "--gpu-memory-utilization 0.95",
        "--max-model-len 1100000",
        f"--max-num-seqs {tpl.expected_max_num_seqs()}",
        "--kv-cache-dtype fp8",
        "--reasoning-parser nemotron_v3",
        "--served-model-name model-nvfp4",
    ):
        assert flag in srun, flag
    assert "#SBATCH --gres gpu:4" in script
    assert re.search(r'^NEL_INVOCATION_ID="[0-9a-f]{16}"$', script, re.M)


# -- nemo-evaluator's own renderer --------------------------------------------------------


def _rollout_words(rendered: str) -> list[str]:
    line = next(x for x in rendered.splitlines() if x.startswith("ng_e2e_collect_rollouts "))
    return shlex.split(line)


def test_limit_samples_is_forwarded_as_gym_limit():
    rendered = tpl.render_command(limit_samples=5)
    assert "++limit=5" in _rollout_words(rendered)


def test_full_run_carries_no_limit():
    rendered = tpl.render_command(limit_samples=None)
    assert not any(w.startswith("++limit") for w in _rollout_words(rendered))
    assert "{{" not in rendered and "{%" not in rendered


def test_rendered_rollouts_use_the_sampling_params():
    words = _rollout_words(tpl.render_command())
    p = tpl.params()
    assert f"++responses_create_params.temperature={p['temperature']}" in words
    assert f"++responses_create_params.top_p={p['top_p']}" in words
    assert f"++global_aiohttp_connector_limit_per_host={p['parallelism']}" in words
    assert "++output_jsonl_fpath=/results/evaluator_rollouts.jsonl" in words


def test_adapter_config_passes_nemo_evaluators_validation():
    from nemo_evaluator.adapters.adapter_config import AdapterConfig

    adapter = tpl.evaluator_config()["target"]["api_endpoint"]["adapter_config"]
    AdapterConfig.get_validated_config(
        {
            "config": {"output_dir": "/results"},
            "target": {"api_endpoint": {"adapter_config": adapter}},
        }
    )
    assert adapter["use_caching"] is False
    assert adapter["process_reasoning_traces"] is True
    assert len(adapter["params_to_add"]["chat_template_kwargs"]) == 1


# -- rules the launcher does not check ----------------------------------------------------


def test_schema_line_and_no_other_placeholders():
    text = tpl.raw_text()
    assert text.splitlines()[0] == (
        "# yaml-language-server: $schema=../../../schemas/nel-0.2.6-config.schema.json"
    )
    for pattern in tpl.PLACEHOLDER_PATTERNS:
        assert not pattern.search(text)
    assert ":latest" not in text


def test_gym_params_fold_cleanly_and_agree_on_the_variant():
    gym = tpl.gym()
    for key in ("data_prep_params", "collect_rollout_params", "common_params"):
        assert "#" not in gym[key], key
    assert "#" not in tpl.load()["deployment"]["command"]
    prep = tpl.variant_paths(gym["data_prep_params"])
    rollout = tpl.variant_paths(gym["collect_rollout_params"])
    assert prep == rollout
    assert prep[-1] == VARIANTS["config_n3_1m.yaml"].config_path
    assert gym["install_on_the_fly"]["commit"] == GYM_PIN


def test_output_is_never_capped():
    assert tpl.params()["max_new_tokens"] is None
    assert "++responses_create_params.max_output_tokens=null" in tpl.gym()["collect_rollout_params"]


def test_launcher_level_settings():
    cfg = tpl.load()
    assert "cluster" not in cfg
    assert "env_vars" not in cfg  # top-level env_vars would also reach export jobs
    ev = cfg["evaluation"]["env_vars"]
    assert ev["NEL_INVOCATION_ID"] == "runtime:NEL_INVOCATION_ID"
    assert ev["HF_TOKEN"] == cfg["deployment"]["env_vars"]["HF_TOKEN"] == "host:HF_TOKEN"
    assert cfg["deployment"]["env_vars"]["VLLM_ALLOW_LONG_MAX_MODEL_LEN"] == "lit:1"
    assert cfg["execution"]["mounts"]["mount_home"] is False
    # Quoted in the file: YAML 1.1 would read an unquoted HH:MM:SS as an integer.
    assert isinstance(yaml.safe_load(tpl.raw_text())["execution"]["walltime"], str)
    for key in ("tensor_parallel_size", "data_parallel_size", "extra_args"):
        assert key not in cfg["deployment"]
    (task,) = cfg["evaluation"]["tasks"]
    assert task["name"] == "nemo_gym"
    assert "export" not in cfg and "auto_export" not in cfg["execution"]


def test_deployment_command_carries_its_settings():
    flags = tpl.deployment_flags()
    assert flags["--gpu-memory-utilization"] == "${deployment.gpu_memory_utilization}"
    assert flags["--max-model-len"] == "1100000"
    assert flags["--port"] == "${deployment.port}"
    assert flags["--served-model-name"] == "${deployment.served_model_name}"
    tp, dp = int(flags["--tensor-parallel-size"]), int(flags["--data-parallel-size"])
    assert tpl.load()["execution"]["gres"] == f"gpu:{tp * dp}"
