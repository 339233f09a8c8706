"""`evalkit init --check`: one document with decisions, questions, checks and commands.

The dry-run is the real nel 0.2.6 launcher installed by the test extra (tests marked
`launcher`); the checkpoint is tests/fixtures/init/qwen3-235b-a22b-fp8 (see its README).
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from helpers.facts import FP8_MOE, FP8_MOE_FACTS
from helpers.nel import DRY_RUN_ENV, dry_run, nel_executable

FACTS = FP8_MOE_FACTS


def check(run_cli, tmp_path, *extra, facts=FACTS):
    facts_file = tmp_path / "facts.yaml"
    facts_file.write_text(yaml.safe_dump(facts))
    out = tmp_path / "mrcr.yaml"
    code, stdout, stderr = run_cli(
        "init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts_file,
        "-o", out, "--check", *extra,
    )  # fmt: skip
    return code, out, stdout, stderr


@pytest.mark.launcher
def test_check_document_and_the_real_dry_run_agree(run_cli, tmp_path, monkeypatch):
    for key, value in DRY_RUN_ENV.items():
        monkeypatch.setenv(key, value)
    code, out, stdout, _ = check(run_cli, tmp_path, "--nel", nel_executable(), "--format", "json")
    doc = json.loads(stdout)
    assert doc["written"] == [str(out)]
    run = doc["checks"][str(out)]["dry_run"]
    assert run["ran"] and run["accepted"], run
    assert code == 0
    # What --check calls accepted, the real launcher accepts (run here apart from evalkit).
    assert dry_run(out).returncode == 0
    assert [f for f in doc["checks"][str(out)]["preflight"] if f["severity"] == "error"] == []
    names = {d["name"]: d for d in doc["decisions"][str(out)]}
    assert names["parallelism"]["value"] == 14 and "18.3x" in names["parallelism"]["reason"]
    assert names["mrcr_variant"]["value"] == "config_n3_128k.yaml"
    asked = {q["name"]: q for q in doc["questions"]}
    # No walltime or context given; the Gym image is on a private registry.
    assert set(asked) == {"walltime", "context", "image_credentials"}
    assert all(q["read"] for q in asked.values())
    assert not [w for w in doc["warnings"] if w.startswith("walltime")]
    commands = doc["commands"][str(out)]
    assert commands["dry_run"].startswith("scripts/nel-gym.sh run --config")
    assert "limit_samples=10" in commands["canary"]
    assert {"full_run", "validate", "score"} <= set(commands)


def test_without_a_launcher_it_says_so_and_how_to_get_one(run_cli, tmp_path):
    full = {**FACTS, "walltime": "08:00:00", "context": 262144}
    code, out, stdout, _ = check(
        run_cli, tmp_path, "--nel", str(tmp_path / "no-such-nel"), "--format", "json", facts=full
    )
    doc = json.loads(stdout)
    run = doc["checks"][str(out)]["dry_run"]
    assert run["ran"] is False and "not found" in run["why"]
    assert "nemo-evaluator-launcher[all]==0.2.6" in run["get_one"]
    assert {q["name"] for q in doc["questions"]} == {"image_credentials"}
    assert out.exists()


def test_text_document_names_every_part(run_cli, tmp_path):
    code, out, stdout, _ = check(run_cli, tmp_path, "--nel", str(tmp_path / "absent"))
    for part in ("wrote ", "decisions:", "preflight:", "dry-run: not run", "commands:",
                 "open questions for the user:", "walltime:", "read references/"):  # fmt: skip
        assert part in stdout, part


def test_check_needs_an_output_file(run_cli, tmp_path):
    facts_file = tmp_path / "facts.yaml"
    facts_file.write_text(yaml.safe_dump(FACTS))
    code, _, stderr = run_cli(
        "init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts_file, "--check"
    )
    assert code == 2 and "-o" in stderr and "Traceback" not in stderr


def test_facts_are_documented_in_json_and_help(run_cli):
    code, out, _ = run_cli("init", "mrcr", "--format", "json")
    assert code == 1
    facts = {f["name"]: f for f in json.loads(out)["facts"]}
    for name in ("context", "walltime", "thinking", "max_nodes", "gpu_mem_gib"):
        assert facts[name]["meaning"] and facts[name]["wrong_value_costs"], name
    assert facts["context"]["unit"] == "tokens"
    assert facts["walltime"]["default"] == "04:00:00"
    assert facts["gpu_mem_gib"]["unit"] == "GiB"
    code, out, _ = run_cli("init", "--help")
    assert "context" in out and "wrong:" in out and "--check" in out


@pytest.mark.launcher
def test_unset_submit_time_variables_get_stand_ins_for_the_dry_run_alone(
    run_cli, tmp_path, monkeypatch
):
    # An agent's shell rarely has USER or HF_TOKEN: the dry-run checks the file with
    # stand-in values and says which, instead of a refusal the agent must work around.
    for key, value in DRY_RUN_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("USER")
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.chdir(tmp_path)  # no ./.env
    code, out, stdout, _ = check(run_cli, tmp_path, "--nel", nel_executable(), "--format", "json")
    run = json.loads(stdout)["checks"][str(out)]["dry_run"]
    assert run["accepted"], run
    assert run["placeholders"] == ["USER", "HF_TOKEN"]
    assert "USER" not in os.environ  # restored after the run
    code, out, stdout, _ = check(run_cli, tmp_path, "--nel", nel_executable(), "--force")
    assert "ran with stand-in values for USER, HF_TOKEN" in stdout
    assert "evalkit-dry-run-placeholder" not in out.read_text()


@pytest.mark.launcher
def test_a_refused_dry_run_is_said_in_text_even_with_stand_ins(run_cli, tmp_path, monkeypatch):
    # Found by an agent: with stand-in values the REFUSED line was skipped (exit 1, no why).
    for key, value in DRY_RUN_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("USER")
    missing = tmp_path / "no-such.env"
    code, _, stdout, _ = check(
        run_cli, tmp_path, "--nel", nel_executable(), "--env-file", str(missing)
    )
    assert code == 1
    assert "dry-run: REFUSED: " in stdout
    assert "ran with stand-in values for USER" in stdout
