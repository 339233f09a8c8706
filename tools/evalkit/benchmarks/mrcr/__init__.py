"""MRCR (NeMo Gym simple_agent, long context): variants and pin (variants.py), grading
with Gym's semantics (grading.py), Gym's aggregate recomputed (aggregate.py), regrading
(regrade.py), its pass plan (plan.py) and its score (score.py)."""

from __future__ import annotations

from evalkit.benchmarks.mrcr.aggregate import read_aggregate_entries
from evalkit.benchmarks.mrcr.plan import PLAN
from evalkit.errors import InputError
from evalkit.runs.rollouts import iter_rollouts
from evalkit.runs.run import Run


def recognises(run: Run) -> bool:
    """A gym task whose config names an MRCR variant, or whose aggregate file (else first
    rollout) comes from an MRCR agent. An empty rollouts file under a gym task with no
    aggregate counts as MRCR, so validate judges it as an MRCR run that wrote nothing."""
    if not run.is_gym:
        return False
    if run.settings.variants_named:
        return True
    if run.aggregate_path.is_file():
        try:
            entries = read_aggregate_entries(run.aggregate_path)
        except InputError:
            entries = None  # corrupt: validate fails it; the rollouts still tell
        if entries is not None:
            return any((name or "").startswith("mrcr") for name, _ in entries)
    if run.rollouts_path.is_file():
        if run.scanned is not None:  # already streamed: no need to peek
            return "mrcr" in (run.scanned.first_agent or "")
        for rollout in iter_rollouts(run.rollouts_path):
            return "mrcr" in (rollout.agent or "")
        return True
    return False


__all__ = ["PLAN", "recognises"]
