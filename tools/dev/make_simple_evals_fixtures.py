"""Write tests/data/simple_evals/: small simple-evals task runs from the real harness that
the bundled pair does not cover (tests/data/simple_evals/PROVENANCE.md).

    python tools/dev/make_simple_evals_fixtures.py --harness HARNESS/bin/python

HARNESS is the venv of tests/data/suite/PROVENANCE.md (nemo-evaluator 0.2.8,
nvidia-simple-evals 26.3). Each fixture is the bundled GPQA task's config with a few
parameters changed, run with bundled_pair_gpqa against the loopback stub:

- repeats: 12 items, n_samples 4, parallelism 4: the rows come back in completion
  order and results.yml's stderr is computed in that order;
- aborted: 30 items, the stub answers 20 requests and then returns 503; max_retries 2,
  so the harness gives up and the run stops without results.yml. Its stdout (retry
  lines, the traceback) is kept as logs/client-5100004.log, as the launcher would.

Unlike the bundled pair there is no reuse mode and no byte-for-byte test: the rows'
order follows the harness's completion order, which varies between runs.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import bundled_pair_gpqa as gpqa
import yaml

ROOT = Path(__file__).resolve().parents[2]
# The candidate's GPQA invocation (until the pair's split into one invocation per task,
# the GPQA task of the combined MRCR + GPQA invocation; same settings, Gym's parameters aside).
(SOURCE,) = (ROOT / "tests/data/suite/candidate").glob(
    "*/simple_evals.gpqa_diamond.0/artifacts/run_config.yml"
)
FIXTURES = {
    # name: (items, {config.params path: value}, stub budget)
    "repeats": (12, {"extra.n_samples": 4, "parallelism": 4}, None),
    "aborted": (30, {"max_retries": 2}, 20),
}


def config_for(params: dict) -> str:
    config = yaml.safe_load(SOURCE.read_text())
    for path, value in params.items():
        node = config["config"]["params"]
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return yaml.safe_dump(config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "tests/data/simple_evals")
    args = parser.parse_args(argv)
    for name, (count, params, budget) in FIXTURES.items():
        with tempfile.TemporaryDirectory(prefix=f"se-{name}-") as tmp:
            work = Path(tmp)
            rows = gpqa.make_bank(2025)[:count]
            gpqa.N_ITEMS = len(rows) * params.get("extra.n_samples", 1)  # requests to expect
            cache = gpqa.write_cache(args.harness, rows, work)
            ef = config_for(params)
            files = gpqa.run_side(
                args.harness, cache, rows, "candidate", ef, work, budget=budget, may_fail=True
            )
            task = args.out / name
            if task.exists():
                shutil.rmtree(task)
            (task / "artifacts").mkdir(parents=True)
            (task / "artifacts" / "run_config.yml").write_text(ef)
            stdout = files.pop("stdout", None)
            if stdout is not None:  # where the launcher puts the task's output
                (task / "logs").mkdir()
                (task / "logs" / "client-5100004.log").write_bytes(stdout)
            for rel, data in files.items():
                path = task / "artifacts" / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
