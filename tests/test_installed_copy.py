"""The installed copy is the product: every command SKILL.md documents, run from a copy of
the skill the way an agent runs it.

The copy holds what git tracks (an install copies the skill directory; `npx skills add`
and a plain copy both leave `.git` behind), the commands go through the copy's
`scripts/evalkit` from a project directory elsewhere, and no `nel` is on PATH: the
dry-runs must come from the copy's own `scripts/nel-gym.sh`, i.e. the pinned launcher.
That wrapper fetches nemo-evaluator-launcher 0.2.6 from the package index on first use
(uv's cache keeps it afterwards), so the launcher half is marked `network`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers.facts import FP8_MOE_FACTS
from helpers.nel import DRY_RUN_ENV

REPO = Path(__file__).resolve().parent.parent
CHECKPOINT = "tests/fixtures/init/qwen3-235b-a22b-fp8"
SUITE = "tests/data/suite"
CANARY_RUN = "tests/data/runs/mrcr-canary"
FACTS = {**FP8_MOE_FACTS, "walltime": "04:00:00", "context": 262144}


def _tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    return [name for name in out.decode().split("\0") if name]


def _path_without_nel() -> str:
    keep = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry and not (Path(entry) / "nel").exists():
            keep.append(entry)
    return os.pathsep.join(keep)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    base = tmp_path_factory.mktemp("installed")
    skill = base / "skills" / "evaluation"
    for name in _tracked_files():
        source = REPO / name
        if source.is_file():
            (skill / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, skill / name)
    project = base / "project"
    project.mkdir()
    # uv (the test extra's, beside nel in the test venv) stays reachable without nel: the
    # copy's scripts take their uv branch, as on a machine with uv, and uv's cache keeps
    # the pinned launcher between runs. Their venv + pip branches have tests of their own
    # (test_scripts_evalkit.py, test_nel_gym.py).
    tools = base / "uv-only"
    tools.mkdir()
    for name in ("uv", "uvx"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    env = {**os.environ, **DRY_RUN_ENV, "PATH": f"{tools}{os.pathsep}{_path_without_nel()}"}
    env["EVALKIT_HOME"] = str(base / "evalkit-home")
    for name in ("EVALKIT_SKILL_DIR", "EVALKIT_PYTHON", "VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(name, None)
    assert shutil.which("nel", path=env["PATH"]) is None
    return skill, project, env


def evalkit(installed, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    skill, project, env = installed
    return subprocess.run(
        ["bash", str(skill / "scripts" / "evalkit"), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def data(installed, relative: str) -> str:
    return str(installed[0] / relative)


@pytest.mark.slow
def test_every_documented_post_run_and_sizing_command_runs_from_the_copy(installed):
    suite = data(installed, SUITE)
    canary = data(installed, CANARY_RUN)
    runs = {
        ("init", "--list"): 0,
        (
            "size",
            "--model-config",
            data(installed, f"{CHECKPOINT}/config.json"),
            "--gpus-per-node",
            "8",
            "--gpu-mem-gib",
            "80",
            "--max-model-len",
            "140000",
            "--parallelism",
            "32",
        ): 0,
        ("validate", canary): None,
        ("score", canary): 0,
        ("regrade", canary): None,
        ("status", canary): None,
        ("compare", f"{suite}/baseline", f"{suite}/candidate"): None,
        (
            "report",
            f"{suite}/baseline",
            f"{suite}/candidate",
            "-o",
            str(installed[1] / "report.html"),
            "--force",
        ): None,
        ("preflight", "--template", data(installed, "recipes/examples/gym/example_mrcr.yaml")): 0,
        ("check-skill", str(installed[0])): 0,
    }
    for args, want in runs.items():
        done = evalkit(installed, *args)
        assert done.returncode in ((want,) if want is not None else (0, 1)), (args, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)


@pytest.mark.slow
@pytest.mark.network
def test_init_check_and_preflight_with_launcher_run_the_pinned_launcher_from_the_copy(
    installed,
):
    skill, project, _ = installed
    facts = project / "facts.yaml"
    facts.write_text(yaml.safe_dump(FACTS))
    config = project / "mrcr.yaml"
    done = evalkit(
        installed, "init", "mrcr-128k", "--checkpoint", data(installed, CHECKPOINT),
        "--facts", str(facts), "-o", str(config), "--check", "--format", "json",
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    doc = json.loads(done.stdout)
    run = doc["checks"][str(config)]["dry_run"]
    assert run["ran"], run
    # The copy's own wrapper ran, not a launcher found elsewhere.
    assert str(skill / "scripts" / "nel-gym.sh") in run["command"], run
    assert run["accepted"], run

    done = evalkit(installed, "preflight", str(config), "--with-launcher", "--format", "json")
    assert "Traceback" not in done.stderr, done.stderr
    assert "no launcher found" not in done.stdout + done.stderr
    assert f"with bash {skill / 'scripts' / 'nel-gym.sh'}" in done.stderr, done.stderr
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    base = project / "baseline.yaml"
    done = evalkit(
        installed, "init", "--baseline-of", str(config),
        "--checkpoint", data(installed, "tests/fixtures/init/qwen3-235b-a22b-bf16"),
        "--set", "checkpoint_path=/lustre/models/Qwen3-235B-A22B",
        "--set", "served_model_name=qwen3-235b-bf16", "--set", "gpu_mem_gib=80", "-o", str(base),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = evalkit(installed, "preflight", "--pair", str(base), str(config))
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    # The wrapper pins the release: ask the copy's own wrapper which one it runs.
    pinned = subprocess.run(
        ["bash", str(skill / "scripts" / "nel-gym.sh"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.fullmatch(r"nemo-evaluator-launcher\[all\]==0\.2\.6\s*", pinned)
