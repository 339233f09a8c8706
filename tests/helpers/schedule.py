"""How tests/run.sh spreads test files over xdist workers: each file whole on one worker
(`--dist loadfile`, so module fixtures are built once), except files that share a costly
import, which all go to the same worker so that only one process pays for it."""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# Files whose tests call nel 0.2.6's Python API (RunConfig.from_hydra) as the oracle:
# importing it pulls in the launcher's mlflow and wandb exporters, about 3 s of CPU.
SHARED_WORKER = {
    "tests/hostile/test_sibling_defaults.py": "nel-python-api",
    "tests/hostile/test_sibling_property.py": "nel-python-api",
}


class SharedImportScheduling(LoadFileScheduling):
    def _split_scope(self, nodeid: str) -> str:
        path = super()._split_scope(nodeid)
        return SHARED_WORKER.get(path, path)
