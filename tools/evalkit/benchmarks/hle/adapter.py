"""HLE's adapter: one item per question, 1 when the judge said "yes", else 0
(nvidia-hle 26.3 `run_judge_results.py`: accuracy is the share of "yes")."""

from __future__ import annotations

from evalkit.benchmarks.adapter import HarnessAdapter
from evalkit.benchmarks.hle import read_outcomes, recognises


class HleAdapter(HarnessAdapter):
    name = harness = "hle"
    declared_scale = "0-1"

    def recognises(self, run):
        return recognises(run)

    def read_outcomes(self, run):
        return read_outcomes(run)

    def own_key(self, run):
        """results.yml's `hle.metrics.accuracy` (nvidia-hle 26.3 under nemo-evaluator
        0.2.8; tests/data/outcomes/hle.0): the share judged correct, 0-1."""
        return "hle_accuracy", "0-1"


ADAPTER = HleAdapter()
