"""One regression test per bug the MRCR seed reports (seeds: the upstream MRCR change).

1. a literal dollar-brace pair inside the gym command block broke every dry-run;
2. a hardcoded `ray==` pin made the sub-server venvs unsatisfiable against the image;
3. `--max-num-seqs` was sized for a different topology than the template's own;
4. the score was read from results.yml, which carries no MRCR score;
5. the template shipped a container its own bootstrap rejects (a non-git /opt/Gym).
"""

from __future__ import annotations

import re

import pytest
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from evalkit.sizing import max_num_seqs
from fixtures.gym import mrcr_template as tpl
from fixtures.gym.harness import Gym


def _strings(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


def _survives_omegaconf(text: str) -> bool:
    try:
        OmegaConf.to_container(OmegaConf.create({"value": text}), resolve=True)
    except OmegaConfBaseException:
        return False
    return True


# 1 ---------------------------------------------------------------------------------------
def test_bug1_gym_command_block_has_no_brace_interpolation():
    gym = tpl.gym()
    assert "${" not in gym["command"]
    for text in _strings(gym):
        assert _survives_omegaconf(text), text[:120]
    # The check can fail: the seed's shape (a shell default in a comment) does not survive.
    assert not _survives_omegaconf("# falls back to ${GYM_DIR:-/opt/Gym}\nset -e\n")


def test_bug1_whole_template_resolves(monkeypatch):
    """The template over the launcher's packaged defaults (its `defaults:` list) resolves."""
    from importlib.resources import files

    import nemo_evaluator_launcher.configs  # noqa: F401  (registers the launcher's resolvers)

    monkeypatch.setenv("USER", "evalkit-ci")
    groups = files("nemo_evaluator_launcher") / "configs"
    base = OmegaConf.create(
        {
            "execution": OmegaConf.create((groups / "execution/slurm/default.yaml").read_text()),
            "deployment": OmegaConf.create((groups / "deployment/vllm.yaml").read_text()),
        }
    )
    cfg = OmegaConf.merge(base, OmegaConf.create(tpl.raw_text()))
    for key, value in tpl.FILLED.items():
        OmegaConf.update(cfg, key.replace(".0.", "[0]."), value)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    assert resolved["deployment"]["command"].count("--gpu-memory-utilization 0.95") == 1


# 2 ---------------------------------------------------------------------------------------
def test_bug2_no_literal_ray_pin():
    text = tpl.raw_text()
    assert not re.search(r"ray(\[[^\]]*\])?\s*==\s*\d", text)
    assert "import ray; print(ray.__version__)" in tpl.command_block()


# 3 ---------------------------------------------------------------------------------------
def test_bug3_max_num_seqs_matches_the_templates_own_topology():
    cfg = tpl.load()
    flags = tpl.deployment_flags(cfg)
    dp = int(flags["--data-parallel-size"])
    instances = int(cfg["execution"]["num_instances"])
    parallelism = int(tpl.params(cfg)["parallelism"])
    assert int(flags["--max-num-seqs"]) == max_num_seqs(parallelism, dp, instances)
    assert int(flags["--max-num-seqs"]) == tpl.expected_max_num_seqs(cfg)
    assert cfg["execution"]["num_nodes"] % instances == 0


# 4 ---------------------------------------------------------------------------------------
def test_bug4_recipe_reads_the_score_from_the_aggregate_file():
    if not tpl.RECIPE.exists():
        pytest.fail(f"{tpl.RECIPE.name} is missing")
    text = tpl.RECIPE.read_text()
    assert "artifacts/evaluator_rollouts_aggregate_metrics.json" in text
    assert "agent_metrics" in text
    assert "`results.yml` carries no MRCR score" in text
    assert "evalkit score" in text


# 5 ---------------------------------------------------------------------------------------
def test_bug5_container_is_a_blank_and_a_non_git_gym_is_rejected(tmp_path):
    (task,) = tpl.load()["evaluation"]["tasks"]
    assert task["container"] == "???"
    gym = Gym(tmp_path, git=False)
    proc = gym.run(tpl.render_command())
    assert proc.returncode != 0
    assert gym.calls("ng_prepare_benchmark") == []
