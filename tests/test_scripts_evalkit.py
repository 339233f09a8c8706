"""`scripts/evalkit` run from an installed, read-only copy of the skill.

The environment goes under EVALKIT_HOME (here inside tmp_path), never into the skill
directory; a second run reuses it; a content change rebuilds it. Installing needs the
package index (the pip cache makes repeat runs quicker).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit import __version__

REPO = Path(__file__).resolve().parent.parent
SKILL_FILES = ("SKILL.md", "README.md", "pyproject.toml")
SKILL_DIRS = ("references", "recipes", "scripts", "schemas", "tools")
IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "build")


def _install_copy(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in SKILL_FILES:
        shutil.copy2(REPO / name, dest / name)
    for name in SKILL_DIRS:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dest / name, ignore=IGNORED)
    return dest


def _set_writable(root: Path, writable: bool) -> None:
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        mode = (
            mode | stat.S_IWUSR
            if writable
            else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        )
        path.chmod(mode)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    }


def _run(script: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(script), *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )


@pytest.fixture
def read_only_skill(tmp_path):
    skill = _install_copy(tmp_path / "skills" / "evaluation")
    _set_writable(skill, False)
    yield skill
    _set_writable(skill, True)  # so that tmp_path can be cleaned up


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ)
    env.update(EVALKIT_HOME=str(tmp_path / "home"), EVALKIT_NO_UV="1")
    for name in ("EVALKIT_PYTHON", "VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(name, None)
    return env


@pytest.mark.slow
def test_installed_copy_runs_without_writing_into_the_skill(read_only_skill, env, tmp_path):
    script = read_only_skill / "scripts" / "evalkit"
    before = _snapshot(read_only_skill)

    first = _run(script, "--version", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"evalkit {__version__}"
    assert "evalkit: first run, creating environment in" in first.stderr
    assert _snapshot(read_only_skill) == before, "scripts/evalkit wrote into the skill directory"

    venv = Path(_run(script, "--evalkit-env", env=env).stdout.strip())
    assert venv.parent == tmp_path / "home"
    assert (venv / "bin" / "evalkit").exists()
    # EVALKIT_NO_UV=1 takes the venv + pip branch even with uv on PATH (the test extra
    # installs uv): the standard library's venv writes no `uv` line in pyvenv.cfg.
    assert "\nuv = " not in (venv / "pyvenv.cfg").read_text()

    start = os.times()  # CPU of the waited-for children: the load cannot stretch it
    second = _run(script, "--version", env=env)
    end = os.times()
    elapsed = (end.children_user - start.children_user) + (
        end.children_system - start.children_system
    )
    assert second.returncode == 0
    assert second.stdout.strip() == f"evalkit {__version__}"
    assert second.stderr == "", "the second run must reuse the environment quietly"
    assert elapsed < 10, f"second run took {elapsed:.1f} s of CPU"

    # Arguments reach evalkit unchanged, exit code included.
    code = _run(script, "check-skill", str(tmp_path / "no-such-dir"), env=env)
    assert code.returncode == 2
    assert code.stderr.startswith("evalkit check-skill: error: ")
    # A change to the sources rebuilds the environment: the same stamp check on either
    # branch, tested on the uv branch below, where a build costs seconds, not a minute.


def _change_the_sources(skill: Path) -> None:
    init = skill / "tools" / "evalkit" / "__init__.py"
    _set_writable(skill, True)
    init.write_text(init.read_text().replace(__version__, __version__ + "+changed"))
    _set_writable(skill, False)


def test_python_too_old_is_one_clear_line(read_only_skill, env, tmp_path):
    fake = tmp_path / "python3.9"
    fake.write_text(
        '#!/usr/bin/env bash\ncase "$*" in *platform*) echo 3.9.18 ;; *) exit 1 ;; esac\n'
    )
    fake.chmod(0o755)
    env["EVALKIT_PYTHON"] = str(fake)
    proc = _run(read_only_skill / "scripts" / "evalkit", "--version", env=env)
    assert proc.returncode == 2
    assert proc.stderr == f"evalkit: needs Python >= 3.10; {fake} is 3.9.18\n"
    assert not (tmp_path / "home").exists()


def test_missing_python_is_one_clear_line(read_only_skill, env, tmp_path):
    env["EVALKIT_PYTHON"] = str(tmp_path / "no-python")
    proc = _run(read_only_skill / "scripts" / "evalkit", "--version", env=env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "needs Python >= 3.10" in proc.stderr


@pytest.mark.slow
def test_reached_through_symlinks_uses_the_real_skill_directory(read_only_skill, env, tmp_path):
    # `npx skills add` may link the skill dir; users may link the script onto PATH.
    linked_dir = tmp_path / "linked-skill"
    linked_dir.symlink_to(read_only_skill)
    linked_script = tmp_path / "evalkit"
    linked_script.symlink_to(read_only_skill / "scripts" / "evalkit")
    direct = _run(read_only_skill / "scripts" / "evalkit", "--evalkit-env", env=env)
    via_dir = _run(linked_dir / "scripts" / "evalkit", "--evalkit-env", env=env)
    via_script = _run(linked_script, "--evalkit-env", env=env)
    assert direct.returncode == via_dir.returncode == via_script.returncode == 0
    assert direct.stdout == via_dir.stdout == via_script.stdout


def _uv_dir() -> Path | None:
    """Where the test extra's uv lives (beside this interpreter), else uv on PATH."""
    beside = Path(sys.executable).parent / "uv"
    found = beside if beside.exists() else shutil.which("uv")
    return Path(found).parent if found else None


@pytest.mark.slow
def test_uv_branch_builds_the_environment_with_uv(read_only_skill, env, tmp_path):
    uv_dir = _uv_dir()
    if uv_dir is None:
        pytest.skip("uv not installed (the test extra provides it)")
    env.pop("EVALKIT_NO_UV")
    env["PATH"] = f"{uv_dir}{os.pathsep}{env.get('PATH', '')}"
    script = read_only_skill / "scripts" / "evalkit"
    before = _snapshot(read_only_skill)

    first = _run(script, "--version", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"evalkit {__version__}"
    assert "evalkit: first run, creating environment in" in first.stderr
    assert _snapshot(read_only_skill) == before

    venv = Path(_run(script, "--evalkit-env", env=env).stdout.strip())
    # `uv venv` records itself in pyvenv.cfg; the stdlib venv does not.
    assert "\nuv = " in "\n" + (venv / "pyvenv.cfg").read_text()
    second = _run(script, "preflight", "--help", env=env)
    assert second.returncode == 0 and second.stderr == ""
    assert "--context" in second.stdout

    _change_the_sources(read_only_skill)
    third = _run(script, "--version", env=env)
    assert third.returncode == 0, third.stderr
    assert "rebuilding the environment" in third.stderr
    assert third.stdout.strip() == f"evalkit {__version__}+changed"


def test_failed_uv_install_is_one_clear_message_and_no_half_environment(
    read_only_skill, env, tmp_path
):
    # A uv that fails (as one without index access does) must not leave a venv behind.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_uv = bin_dir / "uv"
    fake_uv.write_text("#!/usr/bin/env bash\necho 'error: no index reachable' >&2\nexit 2\n")
    fake_uv.chmod(0o755)
    env.pop("EVALKIT_NO_UV")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    proc = _run(read_only_skill / "scripts" / "evalkit", "--version", env=env)
    assert proc.returncode == 2
    assert "error: no index reachable" in proc.stderr
    assert (
        proc.stderr.rstrip().splitlines()[-1].startswith("evalkit: creating the environment failed")
    )
    home = tmp_path / "home"
    assert not [p for p in home.iterdir() if p.name.startswith("venv-")]


def _hash(skill: Path, env: dict[str, str]) -> str:
    proc = _run(skill / "scripts" / "evalkit", "--evalkit-hash", env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_hash_ignores_build_products_and_readme_but_not_sources(tmp_path, env):
    skill = _install_copy(tmp_path / "evaluation")
    before = _hash(skill, env)
    assert len(before) == 64
    package = skill / "tools" / "evalkit"
    # What an editable install and a test run leave beside the sources.
    (package / "_seqmatch.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (skill / "tools" / "evalkit.egg-info").mkdir()
    (skill / "tools" / "evalkit.egg-info" / "PKG-INFO").write_text("Name: evalkit\n")
    (package / "__pycache__").mkdir(exist_ok=True)
    (package / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    (skill / "tools" / "build" / "temp").mkdir(parents=True)
    (skill / "tools" / "build" / "temp" / "_seqmatch.o").write_bytes(b"\0")
    (skill / "README.md").write_text("edited\n")
    assert _hash(skill, env) == before

    (package / "cli.py").write_text((package / "cli.py").read_text() + "\n")
    assert _hash(skill, env) != before


@pytest.mark.slow
@pytest.mark.network
def test_no_rebuild_after_the_editable_install_tests_run_sh_makes(tmp_path, env):
    # The real build tests/run.sh does (pip install -e: setuptools from the index in an
    # isolated build env, _seqmatch compiled in place), into a throwaway venv.
    skill = _install_copy(tmp_path / "evaluation")
    before = _hash(skill, env)
    venv = tmp_path / "throwaway"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "-e",
            str(skill),
        ],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    assert list((skill / "tools").glob("*.egg-info")), "the editable install wrote no metadata"
    if shutil.which("cc") or shutil.which("gcc"):
        assert list((skill / "tools" / "evalkit").glob("_seqmatch*.so")), "no in-place build"
    assert _hash(skill, env) == before, "scripts/evalkit would rebuild after tests/run.sh"


def _unwritable_homes(tmp_path: Path) -> list[Path]:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    homes = [a_file, a_file / "home", Path("/proc/self")]  # /proc refuses even root
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        homes.append(locked)
    return homes


def test_an_unwritable_evalkit_home_is_one_line_not_a_wait(read_only_skill, env, tmp_path):
    """It looped on "waiting for another evalkit install" forever (issue 30, item 4)."""
    for home in _unwritable_homes(tmp_path):
        env["EVALKIT_HOME"] = str(home)
        proc = subprocess.run(
            ["bash", str(read_only_skill / "scripts" / "evalkit"), "--version"],
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert proc.returncode == 2, (home, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "EVALKIT_HOME" in proc.stderr, proc.stderr
        assert "waiting" not in proc.stderr


# ---------------------------------------------------------------- the stamp, no index
# A stand-in for uv (`uv venv` makes bin/python a shim to this interpreter, where evalkit
# is installed; `uv pip install` only logs), and a base interpreter that logs its calls:
# the wrapper's own logic runs for real, each build and each Python process counted.
FAKE_UV = """#!/usr/bin/env bash
set -eu
if [ "$1" = venv ]; then
  venv=${@: -1}
  mkdir -p "$venv/bin"
  printf '#!/bin/sh\\necho venv >>"%s"\\nexec "%s" "$@"\\n' "$CALLS" "$REAL_PYTHON" \\
    >"$venv/bin/python"
  chmod +x "$venv/bin/python"
elif [ "$1" = pip ]; then
  echo "build $*" >>"$CALLS"
fi
"""
BASE_PYTHON = '#!/bin/sh\necho base >>"$CALLS"\nexec "$REAL_PYTHON" "$@"\n'


@pytest.fixture
def stub_env(env, tmp_path):
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    for name, text in (("uv", FAKE_UV), ("python3", BASE_PYTHON)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env.pop("EVALKIT_NO_UV")
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        EVALKIT_PYTHON=str(bin_dir / "python3"),
        REAL_PYTHON=sys.executable,
        CALLS=str(tmp_path / "calls.log"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _calls(env) -> list[str]:
    path = Path(env["CALLS"])
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def test_a_current_environment_costs_one_python_process(tmp_path, stub_env):
    skill = _install_copy(tmp_path / "evaluation")
    script = skill / "scripts" / "evalkit"
    first = _run(script, "--version", env=stub_env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"evalkit {__version__}"
    assert "first run, creating environment" in first.stderr
    builds = [c for c in _calls(stub_env) if c.startswith("build ")]
    assert len(builds) == 1 and "--compile-bytecode" in builds[0]  # bytecode at install
    again = _run(script, "--version", env=stub_env)
    assert (again.returncode, again.stderr) == (0, "")
    assert _calls(stub_env) == ["venv"]  # no base interpreter, no hash run: one process
    code = _run(script, "check-skill", str(tmp_path / "no-such-dir"), env=stub_env)
    assert code.returncode == 2 and code.stderr.startswith("evalkit check-skill: error: ")


def test_an_edited_source_rebuilds_and_an_unchanged_tree_does_not(tmp_path, stub_env):
    skill = _install_copy(tmp_path / "evaluation")
    script = skill / "scripts" / "evalkit"
    assert _run(script, "--version", env=stub_env).returncode == 0
    _calls(stub_env)
    # What the stamp leaves out: build products beside the sources, README.md.
    package = skill / "tools" / "evalkit"
    (package / "_seqmatch.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (package / "__pycache__").mkdir(exist_ok=True)
    (package / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    (skill / "README.md").write_text("edited\n")
    quiet = _run(script, "--version", env=stub_env)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert _calls(stub_env) == ["venv"]
    # A source edited in place (same size: the modification time tells it)...
    cli = package / "cli.py"
    text = cli.read_text()
    cli.write_text(text.replace("prog=", "prog=", 1))
    stat_ = cli.stat()
    os.utime(cli, ns=(stat_.st_atime_ns, stat_.st_mtime_ns + 10**9))
    rebuilt = _run(script, "--version", env=stub_env)
    assert rebuilt.returncode == 0 and rebuilt.stdout.strip() == f"evalkit {__version__}"
    assert "rebuilding the environment" in rebuilt.stderr
    assert len([c for c in _calls(stub_env) if c.startswith("build ")]) == 1
    # ... and a new file under tools/.
    (skill / "tools" / "evalkit" / "extra.py").write_text("X = 1\n")
    assert "rebuilding" in _run(script, "--version", env=stub_env).stderr
    assert _run(script, "--version", env=stub_env).stderr == ""


def test_python3_found_through_another_path_does_not_rebuild(tmp_path, stub_env):
    """Without EVALKIT_PYTHON the stamp does not name the interpreter's path: an activated
    venv of the same Python (another python3 first on PATH) reuses the environment."""
    skill = _install_copy(tmp_path / "evaluation")
    script = skill / "scripts" / "evalkit"
    base = Path(stub_env.pop("EVALKIT_PYTHON"))
    assert "first run" in _run(script, "--version", env=stub_env).stderr
    other = tmp_path / "activated" / "bin"
    other.mkdir(parents=True)
    shutil.copy(base, other / "python3")
    stub_env["PATH"] = f"{other}{os.pathsep}{stub_env['PATH']}"
    again = _run(script, "--version", env=stub_env)
    assert (again.returncode, again.stderr) == (0, "")
    stub_env["EVALKIT_PYTHON"] = str(base)  # an interpreter named on purpose: rebuilt for it
    assert "rebuilding" in _run(script, "--version", env=stub_env).stderr
