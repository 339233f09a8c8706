"""Preflight against the real nel 0.2.6 dry-run on the config classes of issue 33.

Configs in the wild that preflight misjudged, one pair per class in
tests/preflight/corpus_wild/ (one the launcher accepts, one it refuses or that is
broken on every cluster):

1. defaults that name files beside the config (`- _endpoints`), present or missing;
2. documentation fragments with no `defaults:` list, which `nel run` reads as they stand;
3. `runtime:NEL_INVOCATION_ID` in top-level env_vars, with and without an export job.

Both tools see the same file and environment; the verdicts must agree and the finding
must carry the rule that names the class. For class 3 the broken case is accepted by the
dry-run (the failure is at run time), so the rendered export job itself is run in bash
to show the failure the rule predicts.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from evalkit.preflight.runner import Options, check_file

from .nel_batch import launch_env, run_batch

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

WILD = Path(__file__).resolve().parent / "corpus_wild"

# stem -> (launcher verdict, preflight's error codes, exactly). "defective": accepted by
# the dry-run, broken on every cluster (a rule proves it), so preflight errs.
EXPECTED = {
    "w1_sibling_defaults_ok": ("accepted", set()),
    "w1_sibling_missing_bad": ("refused", {"NEL007"}),
    "w2_no_defaults_complete_ok": ("accepted", set()),
    "w2_fragment_hosted_bad": ("refused", {"NEL001", "NEL010"}),
    "w2_fragment_lepton_bad": ("refused", {"NEL010"}),
    "w2_fragment_mlflow_bad": ("refused", {"NEL005", "NEL010"}),
    "w3_invocation_id_local_ok": ("accepted", set()),
    "w3_invocation_id_slurm_export_bad": ("defective", {"NEL102"}),
}


def _configs() -> list[Path]:
    # `_*.yaml` are the files the configs name in their defaults, not configs
    return sorted(p for p in WILD.glob("*.yaml") if not p.name.startswith("_"))


def _overrides(path: Path, work: Path) -> list[str]:
    """The local dry-run writes under output_dir: point the configs that set one here."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if "output_dir" in (data.get("execution") or {}):
        return [f"execution.output_dir={work}/out"]
    return []


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    work = tmp_path_factory.mktemp("wild")
    env = launch_env()
    jobs = [{"config": str(p), "overrides": _overrides(p, work)} for p in _configs()]
    launcher = run_batch(jobs, work, 0, env)
    out = {}
    for path, job, verdict in zip(_configs(), jobs, launcher, strict=True):
        findings = check_file(str(path), Options(overrides=job["overrides"], env=env))
        out[path.stem] = (verdict, findings)
    return out


def test_every_corpus_file_has_an_expectation():
    assert [p.stem for p in _configs()] == sorted(EXPECTED)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_launcher_verdict_is_the_expected_one(verdicts, stem):
    verdict, _ = verdicts[stem]
    assert verdict["ok"] is (EXPECTED[stem][0] != "refused"), verdict["error"]


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_preflight_agrees_with_the_launcher(verdicts, stem):
    verdict, findings = verdicts[stem]
    errors = {f.rule for f in findings if f.severity == "error"}
    assert errors == EXPECTED[stem][1], (verdict["error"], [f.message for f in findings])


def test_sibling_values_are_composed_and_located(verdicts):
    """The endpoint comes from `_endpoints.yaml`; a finding about it names that file."""
    _, findings = verdicts["w1_sibling_defaults_ok"]
    assert not any(f.rule in ("NEL007", "NEL010") for f in findings)
    located = [f for f in findings if f.path and f.path.startswith("target.")]
    assert all(f.file.endswith("_endpoints.yaml") for f in located)


def test_a_missing_sibling_is_one_finding(verdicts):
    verdict, findings = verdicts["w1_sibling_missing_bad"]
    assert "_judges" in verdict["error"]
    assert [f.rule for f in findings] == ["NEL007"] and "_judges.yaml" in findings[0].message


def test_fragments_are_no_wrapper(verdicts):
    for stem in ("w2_fragment_hosted_bad", "w2_fragment_lepton_bad", "w2_fragment_mlflow_bad"):
        assert "NEL012" not in {f.rule for f in verdicts[stem][1]}


def test_no_export_job_no_invocation_finding(verdicts):
    _, findings = verdicts["w3_invocation_id_local_ok"]
    assert "NEL102" not in {f.rule for f in findings}


def test_the_rendered_export_job_fails_as_nel102_says(tmp_path):
    """The SLURM dry-run's export.sbatch, run in bash without the variable (as sbatch
    starts it in a fresh shell): it stops at the re-export, before any srun."""
    from helpers.launcher import launcher
    from helpers.nel import dry_run_argv

    config = WILD / "w3_invocation_id_slurm_export_bad.yaml"
    result = launcher().run(dry_run_argv(config, None), launch_env(), str(tmp_path))
    assert result.returncode == 0, result.error
    found = re.search(r"<< 'EXPORT_EOF'\n(.*?)\nEXPORT_EOF", result.stdout, re.S)
    assert found, "no export.sbatch in the rendered run.sub"
    script = found.group(1)
    assert "NEL_INVOCATION_ID=" not in script.replace('NEL_INVOCATION_ID="${', "")
    # what .secrets.env gives the job (it sources that file): every scoped secret name
    secrets = set(re.findall(r"\$\{(\w+_[0-9a-f]{4}_[A-Z]+)\}", script))
    env = {"PATH": "/usr/bin:/bin", **{name: "from-secrets-file" for name in secrets}}
    run = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
    assert run.returncode != 0
    assert "NEL_INVOCATION_ID: unbound variable" in run.stderr


MINE = """\
# a deployment option of the user's own, beside the config (Hydra's primary directory)
defaults:
  - vllm
  - _self_
image: vllm/vllm-openai:v0.10.1
tensor_parallel_size: 2
"""
WITH_MINE = """\
defaults:
  - execution: local
  - deployment: mine
  - _endpoints
  - _self_
execution:
  output_dir: /data/results/mine
deployment:
  checkpoint_path: /models/small
  served_model_name: small
evaluation:
  tasks:
    - name: simple_evals.mmlu
"""


def _hydra(config: Path) -> dict:
    """The launcher's own composition (RunConfig.from_hydra, nel 0.2.6 api/types.py)."""
    from nemo_evaluator_launcher.api.types import RunConfig
    from omegaconf import OmegaConf

    return OmegaConf.to_container(RunConfig.from_hydra(config=str(config)), resolve=False)


@pytest.mark.parametrize("case", ["root_sibling", "group_sibling"])
def test_composition_matches_the_launchers_hydra(tmp_path, case):
    from evalkit.config import load_config
    from evalkit.config.groups import bundled_groups

    (tmp_path / "_endpoints.yaml").write_text((WILD / "_endpoints.yaml").read_text())
    if case == "root_sibling":
        config = tmp_path / "w1.yaml"
        config.write_text((WILD / "w1_sibling_defaults_ok.yaml").read_text())
    else:
        (tmp_path / "deployment").mkdir()
        (tmp_path / "deployment" / "mine.yaml").write_text(MINE)
        config = tmp_path / "mine_user.yaml"
        config.write_text(WITH_MINE)
    ours, theirs = load_config(str(config)).data, _hydra(config)
    theirs.pop("user_config_path", None)
    # keys the bundled-groups data holds as a short stand-in (its `summarised` list)
    for group, options in bundled_groups().items():
        for option in options.values():
            for key in option.get("summarised", []):
                for side in (ours, theirs):
                    side.get(group, {}).pop(key, None)
    assert ours == theirs


def test_a_sibling_file_takes_its_own_disable_comments(tmp_path, capsys, monkeypatch):
    from evalkit.cli import main

    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    monkeypatch.delenv("INFERENCE_API_KEY", raising=False)

    endpoints = (WILD / "_endpoints.yaml").read_text()
    endpoints = endpoints.replace("target:", "# evalkit: disable=NEL104\ntarget:", 1)
    (tmp_path / "_endpoints.yaml").write_text(endpoints)
    config = tmp_path / "w1.yaml"
    config.write_text((WILD / "w1_sibling_defaults_ok.yaml").read_text())
    main(["preflight", "--format", "json", str(config)])
    document = json.loads(capsys.readouterr().out)
    # the endpoint's api_key_name warning is in _endpoints.yaml, silenced there
    assert not [f for f in document["findings"] if f["file"].endswith("_endpoints.yaml")]
    assert document["suppressed"] == {"NEL104": 1}
