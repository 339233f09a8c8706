from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def run_cli(capsys):
    """Call `evalkit.cli.main` in-process; returns (exit code, stdout, stderr)."""
    from evalkit.cli import main

    def _run(*argv: str):
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run
