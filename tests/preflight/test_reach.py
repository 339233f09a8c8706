"""The README's reach figure, asserted: tests/bench/bench_reach.py on corpus_public and
corpus_history with the real nel 0.2.6 as the oracle. At least 38 of the 44 refused
configs are accepted after `--fix --unsafe-fixes`, no accepted one is broken, and a
second `--fix --unsafe-fixes` changes nothing. Here each `--fix` is `evalkit.cli.main` in
this worker, with the bench's environment as the whole of os.environ; the bench itself
starts a process per fix, as a user runs it (152 processes, about 50 s of CPU)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from evalkit.cli import main

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_reach.py"


def test_reach_on_the_public_corpora(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("bench_reach", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def fix_in_process(path: Path, env: dict) -> int:
        with monkeypatch.context() as patch:
            for name in list(os.environ):
                patch.delenv(name)
            for name, value in env.items():
                patch.setenv(name, value)
            code = main(["preflight", "--fix", "--unsafe-fixes", str(path)])
        capsys.readouterr()
        return code  # 2 for the corpus's files that are not configs (the bench ignores it too)

    figures = bench.report(bench.measure(bench.CORPORA, fix=fix_in_process))
    assert figures["refused"] == 44, figures
    assert figures["accepted_after_fix"] >= 38, figures
    assert figures["broken"] == [] and figures["second_fix_changed"] == [], figures
