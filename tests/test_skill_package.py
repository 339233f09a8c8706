"""The repository as a skill package: the Agent Skills reference validator, shellcheck on
every script, check-skill on the real tree, and the pre-commit files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.cli import COMMANDS

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# What an installer copies: everything but development state.
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache", ".hypothesis"
)


def _tool(name: str) -> str:
    path = BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    assert found, f"{name} not found: install the test extra (bash tests/run.sh)"
    return found


def _skill_name() -> str:
    text = (REPO / "SKILL.md").read_text()
    return yaml.safe_load(text.split("---", 2)[1])["name"]


def _copy_skill(dest: Path) -> Path:
    dest.mkdir(parents=True)
    shutil.copy2(REPO / "SKILL.md", dest / "SKILL.md")
    for folder in ("references", "recipes", "scripts", "schemas", "tools"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, dest / folder, ignore=IGNORED)
    return dest


# --- the Agent Skills reference validator (skills-ref) --------------------------------


def test_reference_validator_accepts_the_skill(tmp_path):
    skill = _copy_skill(tmp_path / _skill_name())
    proc = subprocess.run(
        [_tool("agentskills"), "validate", str(skill)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_reference_validator_rejects_a_wrong_directory_name(tmp_path):
    # The validator is real and strict: installed under another name, the skill fails.
    skill = _copy_skill(tmp_path / "not-the-name")
    proc = subprocess.run(
        [_tool("agentskills"), "validate", str(skill)], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "must match skill name" in proc.stdout + proc.stderr


# --- shellcheck on every script -------------------------------------------------------

SCRIPTS = sorted({*REPO.glob("scripts/*.sh"), REPO / "scripts" / "evalkit"})


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_passes_shellcheck(script):
    assert script.is_file(), f"{script.name} is missing"
    proc = subprocess.run(
        [_tool("shellcheck"), "-x", str(script)], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_scripts_are_executable():
    for script in SCRIPTS:
        assert script.stat().st_mode & 0o111, f"{script.name} is not executable"


# --- check-skill on the real tree -----------------------------------------------------


def test_check_skill_passes_on_this_repo(run_cli):
    code, out, _ = run_cli("check-skill", REPO)
    assert code == 0, out


# --- pre-commit -----------------------------------------------------------------------


def _load(name: str):
    return yaml.safe_load((REPO / name).read_text())


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("validate-config", ".pre-commit-config.yaml"),
        ("validate-manifest", ".pre-commit-hooks.yaml"),
    ],
)
def test_pre_commit_accepts_its_files(command, name):
    # pre-commit's own schema check; offline (nothing is fetched or installed).
    proc = subprocess.run(
        [_tool("pre-commit"), command, str(REPO / name)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_offered_hooks_run_existing_evalkit_commands():
    hooks = _load(".pre-commit-hooks.yaml")
    assert {h["id"] for h in hooks} == {"evalkit-preflight", "evalkit-check-skill"}
    for hook in hooks:
        program, command, *_ = hook["entry"].split()
        assert program == "evalkit"
        assert command in COMMANDS
        assert hook["language"] == "python"
    by_id = {h["id"]: h for h in hooks}
    assert by_id["evalkit-preflight"]["types"] == ["yaml"]
    assert by_id["evalkit-check-skill"]["pass_filenames"] is False


def test_repo_config_has_the_agreed_hooks():
    config = _load(".pre-commit-config.yaml")
    ids = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff-check", "ruff-format", "shellcheck", "check-yaml"} <= ids
    local = [h for r in config["repos"] if r["repo"] == "local" for h in r["hooks"]]
    assert [h["entry"] for h in local] == ["scripts/evalkit check-skill ."]
    assert "tests/fixtures" in config["exclude"]


def test_readme_names_every_offered_hook():
    # README.md belongs to the lead; this passes once it documents the hook ids.
    readme = (REPO / "README.md").read_text()
    missing = [h["id"] for h in _load(".pre-commit-hooks.yaml") if h["id"] not in readme]
    assert not missing, f"README.md does not mention the pre-commit hooks {missing}"
