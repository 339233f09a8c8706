"""Synthetic nel 0.2.6 run directories for tests and benchmarks: the names tests import.

The generators live in tests/helpers/synth/, split like the code they feed (`runs/` for
what every run shares, `benchmarks/` one family each); this module re-exports them.

`write_mrcr_run(root, ...)` writes `<root>/<YYYYmmdd_HHMMSS>-<16 hex>/nemo_gym.0/` with
`run.sub`, `logs/` and `artifacts/` (rollouts in completion order, an aggregate file
computed the way Gym's reward_profile does, results.yml without a score,
eval_factory_metrics.json, run_config.yml) and returns the task directory. Grading and
aggregation there are written straight from the facts (not imported from evalkit) so that
tests comparing evalkit with these files are not circular.

    python tests/helpers/rungen.py canary DEST    # regenerate the bundled sample run
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path

if not __package__:  # run as a script: make `helpers` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.synth.benchmarks.gdpval import write_gdpval_run
from helpers.synth.benchmarks.mrcr.aggregate import gym_aggregate
from helpers.synth.benchmarks.mrcr.canary import CANARY, write_canary
from helpers.synth.benchmarks.mrcr.items import (
    ALNUM,
    ORDINALS,
    MrcrItem,
    make_items,
    reference_grade,
)
from helpers.synth.benchmarks.mrcr.run import write_mrcr_run as _write_mrcr_run
from helpers.synth.benchmarks.mrcr.running import write_running_mrcr_run
from helpers.synth.benchmarks.results_yml import write_results_task
from helpers.synth.runs.files import BASE_TIME
from helpers.synth.runs.serverlog import STATS_INTERVAL_S, VLLM_IMAGE, vllm_server_log
from helpers.synth.runs.slurm import add_deployment, nel_status_table, run_sub, slurm_status_job
from helpers.synth.text import FORMATS, TOPICS, WORDS, prose

_MADE: dict[str, Path] = {}  # arguments -> the task directory generated in this process


def write_mrcr_run(root: Path, **options) -> Path:
    """`synth...mrcr.run.write_mrcr_run`, generated once per process for the same
    arguments (the generator is seeded, so the bytes are the same) and copied into `root`
    after that: a test's private copy costs a millisecond instead of 0.1-0.3 s."""
    key = repr(sorted(options.items()))
    if " at 0x" in key:  # an argument without a stable repr: generate afresh
        return _write_mrcr_run(root, **options)
    made = _MADE.get(key)
    if made is None:
        if not _MADE:
            cache = Path(tempfile.mkdtemp(prefix="evalkit-rungen-"))
            atexit.register(shutil.rmtree, cache, True)
            _MADE["<cache>"] = cache
        made = _MADE[key] = _write_mrcr_run(_MADE["<cache>"] / str(len(_MADE)), **options)
    invocation = made.parent
    target = Path(root) / invocation.name
    shutil.copytree(invocation, target, symlinks=True, dirs_exist_ok=True)
    return target / made.name


__all__ = [
    "ALNUM",
    "BASE_TIME",
    "CANARY",
    "FORMATS",
    "ORDINALS",
    "STATS_INTERVAL_S",
    "TOPICS",
    "VLLM_IMAGE",
    "WORDS",
    "MrcrItem",
    "add_deployment",
    "gym_aggregate",
    "make_items",
    "nel_status_table",
    "prose",
    "reference_grade",
    "run_sub",
    "slurm_status_job",
    "vllm_server_log",
    "write_canary",
    "write_gdpval_run",
    "write_mrcr_run",
    "write_results_task",
    "write_running_mrcr_run",
]

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "canary":
        sys.exit("usage: python tests/helpers/rungen.py canary DEST")
    print(write_canary(Path(sys.argv[2])))
