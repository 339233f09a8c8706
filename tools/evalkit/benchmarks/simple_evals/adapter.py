"""simple-evals' adapter: items from its per-item database (read_outcomes). Each row's
`score` is the eval's SingleEvalResult score, 0 or 1 for the multiple-choice and exact
match evals (nvidia-simple-evals 26.3, e.g. `gpqa_eval.py`: `score = 1.0 if correct`)."""

from __future__ import annotations

from evalkit.benchmarks.adapter import HarnessAdapter
from evalkit.benchmarks.simple_evals import HARNESS, read_outcomes, recognises
from evalkit.benchmarks.simple_evals.responses import stored_replies


class SimpleEvalsAdapter(HarnessAdapter):
    name = harness = HARNESS
    declared_scale = "0-1"

    def recognises(self, run):
        return recognises(run)

    def read_outcomes(self, run):
        return read_outcomes(run)

    def stored_replies(self, run):
        return stored_replies(run)


ADAPTER = SimpleEvalsAdapter()
