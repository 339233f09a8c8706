"""Structure of the agent evals (tests/evals/evals.json) and their fixture files.

The evals themselves are graded by running an agent with the skill; these tests only make
sure the file is well-formed, every fixture exists and parses, and the fixtures still
carry the facts (or the planted mistakes) their scenarios are about.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from evalkit.checkpoint import load_checkpoint

REPO = Path(__file__).resolve().parent.parent
EVALS = REPO / "tests" / "evals" / "evals.json"
FILES = REPO / "tests" / "evals" / "files"

# Scenarios the issue requires; each needs at least one eval whose prompt or expected
# output contains every word of its entry (case-insensitive).
REQUIRED_SCENARIOS = {
    "MRCR at 1M": ["config_n3_1m", "1100000"],
    "MRCR at 128k, 256k trained": ["config_n3_128k", "262144"],
    "MRCR at 128k, 128k trained": ["config_n3_128k", "182496"],
    "AA request without MRCR": ["aa/", "gdpval", "no mrcr"],
    "nel-next benchmark": ["terminal-bench 2.1", "nel-next"],
    "completed run, prefix gate": ["prefix_matched", "reasoning"],
    "completed run, rollout shortfall": ["preempt", "2363"],
    "quantized vs BF16": ["nvfp4", "bf16", "evalkit compare"],
    "planted config mistake": ["folded", "32768"],
    "MMLU-Pro on 0.2.6": ["mmlu-pro", "0.2.6"],
    "external endpoint": ["deployment: none", "api_endpoint"],
    "running job status": ["running", "timeout"],
    "workspace reuse, PTQ out of scope": ["modelopt_workspace_root", "ptq"],
    "GDPVal standalone, no canary": ["gdpval", "no canary"],
}


def load_evals() -> dict:
    return json.loads(EVALS.read_text(encoding="utf-8"))


def all_evals() -> list[dict]:
    return load_evals()["evals"]


def fixture_files() -> list[Path]:
    return sorted(p for p in FILES.rglob("*") if p.is_file())


def skill_name() -> str:
    text = (REPO / "SKILL.md").read_text(encoding="utf-8")
    frontmatter = text.split("---", 2)[1]
    return yaml.safe_load(frontmatter)["name"]


def test_top_level_shape():
    doc = load_evals()
    assert set(doc) == {"skill_name", "evals"}
    assert doc["skill_name"] == skill_name() == "evaluation"
    assert isinstance(doc["evals"], list)
    assert len(doc["evals"]) >= 10


def test_ids_are_unique_integers():
    ids = [e["id"] for e in all_evals()]
    assert all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", all_evals(), ids=lambda e: f"eval-{e['id']}")
def test_eval_fields(case):
    assert set(case) == {"id", "prompt", "files", "expected_output", "assertions"}
    assert isinstance(case["prompt"], str) and case["prompt"].strip()
    assert isinstance(case["expected_output"], str) and case["expected_output"].strip()
    assert isinstance(case["files"], list)
    assert all(isinstance(f, str) for f in case["files"])
    assertions = case["assertions"]
    assert isinstance(assertions, list) and len(assertions) >= 2
    assert all(isinstance(a, str) and a.strip() for a in assertions)
    assert len(set(assertions)) == len(assertions), "duplicate assertion"


@pytest.mark.parametrize("case", all_evals(), ids=lambda e: f"eval-{e['id']}")
def test_every_listed_file_exists_under_the_fixture_dir(case):
    for name in case["files"]:
        path = (REPO / name).resolve()
        assert path.is_file(), f"eval {case['id']}: {name} does not exist"
        assert FILES.resolve() in path.parents, f"eval {case['id']}: {name} is outside {FILES}"


def test_every_fixture_is_used_by_some_eval():
    used = {(REPO / f).resolve() for case in all_evals() for f in case["files"]}
    orphans = [str(p.relative_to(REPO)) for p in fixture_files() if p.resolve() not in used]
    assert orphans == []


@pytest.mark.parametrize(
    "path",
    [p for p in fixture_files() if p.suffix in (".yaml", ".yml")],
    ids=lambda p: str(p.relative_to(FILES)),
)
def test_yaml_fixture_parses(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)


@pytest.mark.parametrize(
    "path",
    [p for p in fixture_files() if p.suffix == ".json"],
    ids=lambda p: str(p.relative_to(FILES)),
)
def test_json_fixture_parses(path):
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict)


@pytest.mark.parametrize("scenario", sorted(REQUIRED_SCENARIOS))
def test_required_scenario_is_covered(scenario):
    words = REQUIRED_SCENARIOS[scenario]
    texts = [(e["prompt"] + "\n" + e["expected_output"]).lower() for e in all_evals()]
    assert any(all(w in t for w in words) for t in texts), f"no eval covers {scenario}"


# --- the fixtures still say what their scenarios depend on ----------------------------


@pytest.mark.parametrize(
    ("name", "max_len", "moe", "remote_code", "kv"),
    [
        ("moe-nvfp4-1m", 1_048_576, True, True, "fp8"),
        ("dense-bf16-256k", 262_144, False, False, None),
        ("dense-fp8-128k", 131_072, False, False, None),
        ("moe-fp8-256k", 262_144, True, True, "fp8"),
    ],
)
def test_checkpoint_fixture_facts(name, max_len, moe, remote_code, kv):
    ckpt = load_checkpoint(FILES / "checkpoints" / name)
    assert ckpt.max_position_embeddings == max_len
    assert ckpt.is_moe is moe
    assert ckpt.needs_trust_remote_code is remote_code
    assert ckpt.kv_cache_quant == kv


def planted() -> dict:
    return yaml.safe_load((FILES / "configs" / "mrcr_planted_mistakes.yaml").read_text())


def test_planted_hash_inside_folded_command():
    command = planted()["deployment"]["command"]
    before, _, after = command.partition("#")
    assert after, "the folded command no longer contains a '#'"
    # Everything bash would drop after the comment sign.
    for flag in ("--trust-remote-code", "--kv-cache-dtype", "--reasoning-parser"):
        assert flag not in before and flag in after


def test_planted_brace_interpolation_in_gym_command():
    gym = planted()["evaluation"]["nemo_evaluator_config"]["config"]["params"]["extra"]
    command = gym["nemo_gym"]["command"]
    assert "${HOME}" in command
    with pytest.raises(OmegaConfBaseException):
        OmegaConf.to_container(OmegaConf.create({"command": command}), resolve=True)


def test_planted_capped_output_and_unquoted_walltime():
    config = planted()
    params = config["evaluation"]["nemo_evaluator_config"]["config"]["params"]
    assert params["max_new_tokens"] == 32768
    assert "max_output_tokens=32768" in params["extra"]["nemo_gym"]["collect_rollout_params"]
    # YAML 1.1 sexagesimal: the unquoted walltime is an integer, as the scenario says.
    assert config["execution"]["walltime"] == 36000


def test_leak_fixture_shows_a_failing_prefix_gate():
    summary = json.loads((FILES / "runs" / "mrcr-leak" / "summary.json").read_text())
    metrics = summary["aggregate"][0]["agent_metrics"]
    assert metrics["mean/prefix_matched"] < 0.25
    leaked = summary["sample_responses"][0]
    assert "</think>" in leaked["message_text"] and leaked["prefix_matched"] is False
    # The leak run's server has no reasoning parser: the cause the scenario expects.
    config = yaml.safe_load((FILES / "configs" / "mrcr_leak_run.yaml").read_text())
    assert "--reasoning-parser" not in config["deployment"]["command"]


def test_gpqa_pair_differs_in_repeats_only():
    def params(name: str) -> dict:
        return yaml.safe_load((FILES / "runs" / "gpqa-pair" / name).read_text())["config"]["params"]

    base, cand = params("bf16_results.yml"), params("nvfp4_results.yml")
    assert base["extra"]["num_repeats"] == 16 and cand["extra"]["num_repeats"] == 8
    base["extra"].pop("num_repeats")
    cand["extra"].pop("num_repeats")
    assert base == cand


def test_skill_paths_named_by_evals_exist():
    """Every skill path an eval names (recipes/, references/, scripts/) is in the tree."""
    from evalkit.skillcheck.paths import code_paths, skill_roots

    missing = set()
    roots = skill_roots(REPO)
    for case in all_evals():
        for text in (case["prompt"], case["expected_output"], *case["assertions"]):
            missing.update(p for p, _ in code_paths(text, roots) if not (REPO / p).exists())
    assert sorted(missing) == []
