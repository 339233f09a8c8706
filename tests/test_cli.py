"""The CLI contract every subcommand shares."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evalkit.cli import COMMANDS


def test_top_level_help_lists_every_command(run_cli):
    code, out, _ = run_cli("--help")
    assert code == 0
    for name in COMMANDS:
        assert name in out
    assert "exit codes" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_examples_and_json(run_cli, name):
    code, out, _ = run_cli(name, "--help")
    assert code == 0
    assert "examples:" in out
    assert f"evalkit {name}" in out.split("examples:")[1]
    assert "--format" in out and "json" in out


def test_unknown_command_is_a_usage_error(run_cli):
    code, _, err = run_cli("no-such-command")
    assert code == 2
    assert "invalid choice" in err


@pytest.mark.entrypoint
def test_module_entry_point_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("evalkit ")


def test_json_report_turns_nan_into_null():
    import io

    from evalkit.render.report import write_json

    buf = io.StringIO()
    write_json({"x": float("nan"), "y": [1.0, float("inf")]}, buf)
    assert json.loads(buf.getvalue()) == {"x": None, "y": [1.0, None]}
