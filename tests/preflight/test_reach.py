"""The README's reach figure, asserted: tests/bench/bench_reach.py on corpus_public and
corpus_history with the real nel 0.2.6 as the oracle. At least 38 of the 44 refused
configs are accepted after `--fix --unsafe-fixes`, no accepted one is broken, and a
second `--fix --unsafe-fixes` changes nothing (about 70 s: every file is fixed twice in
its own process)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_reach.py"


def test_reach_on_the_public_corpora():
    spec = importlib.util.spec_from_file_location("bench_reach", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.report(bench.measure(bench.CORPORA))
    assert figures["refused"] == 44, figures
    assert figures["accepted_after_fix"] >= 38, figures
    assert figures["broken"] == [] and figures["second_fix_changed"] == [], figures
