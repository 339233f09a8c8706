"""Issue 10's false-error classes, each pinned: configs nobody here wrote that the
launcher accepts must get no preflight error (warnings where the contract says so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.preflight.runner import Options, check_file

from .conftest import FIXTURE_ENV

SLURM_VLLM = """\
defaults:
  - execution: slurm/default
  - deployment: vllm
  - _self_
execution:
  hostname: login.example.org
  account: evals
  output_dir: /lustre/results
  walltime: "04:00:00"
  mounts:
    mount_home: false
deployment:
  image: vllm/vllm-openai:v0.10.1
  checkpoint_path: /lustre/models/m
  served_model_name: m
evaluation:
  tasks:
    - name: lm-evaluation-harness.ifeval
"""


def findings(tmp_path: Path, text: str):
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return check_file(str(path), Options(env=dict(FIXTURE_ENV)))


def by_rule(found, code):
    return [f for f in found if f.rule == code]


def test_ray_pin_in_shell_comment_is_not_code(tmp_path):
    # the upstream MRCR template after its fix explains the pin in a comment
    text = (
        SLURM_VLLM
        + """\
  pre_cmd: |
    # the image carries ray[default]==2.55.1; pin to what the image has:
    ver=$(python -c 'import ray; print(ray.__version__)')
    echo "ray[default]==$ver" >> requirements.txt
"""
    )
    assert not by_rule(findings(tmp_path, text), "NEL304")


def test_ray_pin_in_prose_is_not_code(tmp_path):
    text = SLURM_VLLM.replace(
        "  served_model_name: m\n",
        "  served_model_name: m\n  description: built against ray==2.49.2\n",
    )
    assert not by_rule(findings(tmp_path, text), "NEL304")


def test_ray_pin_in_code_still_reported(tmp_path):
    text = SLURM_VLLM + "  pre_cmd: echo 'ray==2.49.2' >> requirements.txt  # pinned\n"
    assert by_rule(findings(tmp_path, text), "NEL304")


def test_package_directive_in_defaults(tmp_path):
    # examples/slurm_vllm_auxiliary_judge.yaml at nemo-evaluator-launcher-v0.2.6
    text = (
        SLURM_VLLM.replace(
            "  - deployment: vllm\n",
            "  - deployment: vllm\n  - deployment/vllm@auxiliary_deployments.judge\n",
        )
        + "auxiliary_deployments:\n  judge:\n    served_model_name: judge\n"
    )
    found = findings(tmp_path, text)
    assert not by_rule(found, "NEL007")
    assert not [f for f in by_rule(found, "NEL004") if "auxiliary" in (f.path or "")]


def test_dp_from_interpolation_in_bash_c(tmp_path):
    # examples/slurm_vllm_multinode_dp.yaml: DP 16 over 2 nodes of 8, flags inside bash -c
    text = SLURM_VLLM.replace("  walltime:", "  num_nodes: 2\n  gres: gpu:8\n  walltime:").replace(
        "  served_model_name: m\n",
        "  served_model_name: m\n  data_parallel_size: 16\n  command: >-\n"
        "    bash -c 'vllm serve /checkpoint --port 8000\n"
        "    --data-parallel-size ${deployment.data_parallel_size}'\n",
    )
    assert not by_rule(findings(tmp_path, text), "NEL204")


def test_interpolation_through_oc_select(tmp_path):
    text = SLURM_VLLM.replace("  walltime:", "  gres: gpu:8\n  walltime:").replace(
        "  served_model_name: m\n",
        "  served_model_name: m\n  command: vllm serve /checkpoint --port 8000 "
        "--tensor-parallel-size ${oc.select:deployment.tensor_parallel_size,1}\n",
    )
    assert not by_rule(findings(tmp_path, text), "NEL204")


def test_idle_gpus_and_inherited_mount_home_are_warnings(tmp_path):
    # examples/slurm_vllm_basic.yaml inherits mount_home and gpu:8 with a TP2 model
    text = SLURM_VLLM.replace("  mounts:\n    mount_home: false\n", "").replace(
        "  served_model_name: m\n", "  served_model_name: m\n  tensor_parallel_size: 2\n"
    )
    found = findings(tmp_path, text)
    assert [f.severity for f in by_rule(found, "NEL201")] == ["warning"]
    assert [f.severity for f in by_rule(found, "NEL204")] == ["warning"]


def test_too_few_gpus_stays_an_error(tmp_path):
    text = SLURM_VLLM.replace("  walltime:", "  gres: gpu:4\n  walltime:")
    assert [f.severity for f in by_rule(findings(tmp_path, text), "NEL204")] == ["error"]


def test_inert_top_level_key_is_a_warning(tmp_path):
    found = findings(tmp_path, SLURM_VLLM + "notes: owned by the evals team\n")
    assert [f.severity for f in by_rule(found, "NEL004")] == ["warning"]


def test_typo_and_refused_keys_stay_errors(tmp_path):
    text = SLURM_VLLM.replace('  walltime: "04:00:00"', '  walltim: "04:00:00"')
    task = "    - name: lm-evaluation-harness.ifeval\n"
    text = text.replace(task, task + "      nemo_evalutor_config: {}\n")
    severities = {f.path: f.severity for f in by_rule(findings(tmp_path, text), "NEL004")}
    assert severities == {
        "execution.walltim": "error",
        "evaluation.tasks[0].nemo_evalutor_config": "error",
    }


@pytest.mark.parametrize(
    ("value", "severity"), [(1, "warning"), (4, "error")], ids=["equals-default", "differs"]
)
def test_dead_key_severity_per_case(tmp_path, value, severity):
    text = SLURM_VLLM.replace("  walltime:", "  gres: gpu:8\n  walltime:").replace(
        "  served_model_name: m\n",
        f"  served_model_name: m\n  tensor_parallel_size: {value}\n"
        "  command: vllm serve /checkpoint --port 8000 --data-parallel-size 8\n",
    )
    assert [f.severity for f in by_rule(findings(tmp_path, text), "NEL301")] == [severity]


# The launcher's own examples/local_basic.yaml pattern at 0.2.6: an endpoint whose key the
# launcher reads from the environment by the name in target.api_endpoint.api_key_name
# (common/env_vars.py `collect_eval_env_vars` adds it as host:NAME to every task).
LOCAL_ENDPOINT = """\
defaults:
  - execution: local
  - deployment: none
  - _self_
execution:
  output_dir: OUTPUT_DIR
target:
  api_endpoint:
    model_id: meta/llama-3.1-8b-instruct
    url: https://inference.example.com/v1/chat/completions
    api_key_name: EVALKIT_REGRESSION_KEY
evaluation:
  tasks:
    - name: lm-evaluation-harness.ifeval
"""


def local_endpoint(tmp_path: Path) -> str:
    return LOCAL_ENDPOINT.replace("OUTPUT_DIR", str(tmp_path / "out"))


def test_unset_api_key_name_is_the_env_warning(tmp_path):
    found = by_rule(findings(tmp_path, local_endpoint(tmp_path)), "NEL104")
    assert [(f.path, f.severity) for f in found] == [
        ("target.api_endpoint.api_key_name", "warning")
    ]
    assert "EVALKIT_REGRESSION_KEY" in found[0].message


def test_api_key_name_set_or_declared_is_quiet(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(local_endpoint(tmp_path), encoding="utf-8")
    env = {**FIXTURE_ENV, "EVALKIT_REGRESSION_KEY": "k"}
    assert not by_rule(check_file(str(path), Options(env=env)), "NEL104")
    declared = local_endpoint(tmp_path) + "  env_vars:\n    EVALKIT_REGRESSION_KEY: host:HF_TOKEN\n"
    assert not by_rule(findings(tmp_path, declared), "NEL104")


@pytest.mark.launcher
def test_the_launcher_stops_on_the_unset_api_key(tmp_path):
    from helpers.nel import dry_run

    path = tmp_path / "config.yaml"
    path.write_text(local_endpoint(tmp_path), encoding="utf-8")
    refused = dry_run(path)
    assert refused.returncode != 0
    assert "EVALKIT_REGRESSION_KEY" in refused.stderr + refused.stdout
    assert dry_run(path, env={"EVALKIT_REGRESSION_KEY": "k"}).returncode == 0
