"""One regression test per bug the MRCR seed reports (seeds: the upstream MRCR change).

1. a literal dollar-brace pair inside the gym command block broke every dry-run;
2. a hardcoded `ray==` pin made the sub-server venvs unsatisfiable against the image;
3. `--max-num-seqs` was sized for a different topology than the template's own;
4. the score was read from results.yml, which carries no MRCR score;
5. the template shipped a container its own bootstrap rejects (a non-git /opt/Gym).
"""

from __future__ import annotations

import json
import re

import pytest
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from evalkit.runs.settings import strings_in
from evalkit.sizing import max_num_seqs
from fixtures.gym import mrcr_template as tpl
from fixtures.gym.harness import Gym

AGGREGATE = "evaluator_rollouts_aggregate_metrics.json"


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
    for text in strings_in(gym):
        assert _survives_omegaconf(text), text[:120]
    # The check can fail: the seed's shape (a shell default in a comment) does not survive.
    assert not _survives_omegaconf("# falls back to ${GYM_DIR:-/opt/Gym}\nset -e\n")


def test_bug1_whole_template_resolves(monkeypatch):
    """The template over the launcher's packaged defaults (its `defaults:` list) resolves."""
    import importlib
    import sys
    from importlib.resources import files

    # Use the launcher's own resolver, even if evalkit registered its stand-in earlier.
    OmegaConf.clear_resolver("select_not_null")
    name = "nemo_evaluator_launcher.configs"
    importlib.reload(sys.modules[name]) if name in sys.modules else importlib.import_module(name)

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


def test_bug3_preflight_flags_the_upstream_sizing(tmp_path, run_cli):
    """The seed's shapes: 64 seqs per replica against 8 replicas, and DP1 on a 4-GPU gres."""
    text = tpl.raw_text()
    too_many = tmp_path / "too_many.yaml"
    too_many.write_text(text.replace("--max-num-seqs 32", "--max-num-seqs 64"))
    # wasted KV cache and idle GPUs are warnings under the severity contract (issue 10)
    code, out, _ = run_cli(
        "preflight", "--template", too_many, "--format", "json", "--fail-on", "warning"
    )
    rules = {f["rule"] for f in json.loads(out)["findings"] if f["severity"] == "warning"}
    assert code == 1 and "NEL206" in rules

    dp1 = tmp_path / "dp1.yaml"
    dp1.write_text(text.replace("--data-parallel-size 2", "--data-parallel-size 1"))
    code, out, _ = run_cli(
        "preflight", "--template", dp1, "--format", "json", "--fail-on", "warning"
    )
    rules = {f["rule"] for f in json.loads(out)["findings"] if f["severity"] == "warning"}
    assert code == 1 and "NEL204" in rules


def test_bug4_score_reads_the_aggregate_file_never_results_yml(tmp_path, run_cli):
    from helpers.rungen import write_mrcr_run

    task = write_mrcr_run(tmp_path / "ok", n_items=30, seed=3)
    results = (task / "artifacts" / "results.yml").read_text()
    assert "pass@1" not in results  # results.yml holds only token telemetry, as on a real run
    code, out, err = run_cli("score", task, "--format", "json")
    assert code == 0, err
    (entry,) = json.loads(out)["tasks"]
    aggregate = json.loads((task / "artifacts" / AGGREGATE).read_text())
    (agent,) = [a for a in aggregate if a["agent_ref"]["name"] == entry["agent"]]
    assert entry["pass_at_1"] == agent["agent_metrics"]["pass@1/accuracy"]

    gone = write_mrcr_run(tmp_path / "no_aggregate", n_items=30, seed=3, aggregate=False)
    code, out, _ = run_cli("score", gone, "--format", "json")
    assert code != 0  # no silent fallback to results.yml
