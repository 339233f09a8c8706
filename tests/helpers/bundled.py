"""Where the bundled pair's task runs are (tests/data/suite/PROVENANCE.md): each side is a
folder of invocations, MRCR standalone in one, GPQA in another, as the skill runs them."""

from __future__ import annotations

from pathlib import Path

SUITE = Path(__file__).resolve().parents[1] / "data" / "suite"
CONFIGS = SUITE / "configs"
MRCR = "nemo_gym.0"
GPQA = "simple_evals.gpqa_diamond.0"


def task_dir(side: str, task: str) -> Path:
    """The one task directory `task` of the side `side` (baseline, candidate, ...)."""
    (found,) = sorted((SUITE / side).glob(f"*/{task}"))
    return found
