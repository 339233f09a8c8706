"""Benchmark: static `evalkit preflight` vs the launcher's `nel run --dry-run`.

Both run as whole processes on the same config, N times each; prints the medians and
the ratio. Writes nothing into the repository (the dry-run runs in a temporary
directory). Usage, from the repository root:

    bash tests/run.sh --python tests/bench/bench_preflight.py [CONFIG] [-n 7] [--nel PATH]

The default config is recipes/examples/gym/example_mrcr.yaml; its `???` values are
filled with `-o` overrides for the dry-run (preflight runs with --template).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from helpers.nel import DRY_RUN_ENV, blank_paths, nel_executable  # noqa: E402


def timed(cmd: list[str], env: dict, cwd: str) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "config", nargs="?", default=str(REPO / "recipes/examples/gym/example_mrcr.yaml")
    )
    parser.add_argument("-n", type=int, default=7, help="runs per tool (default 7)")
    parser.add_argument(
        "--nel", default=None, help="launcher executable (default: the test venv's nel)"
    )
    args = parser.parse_args()
    config = str(Path(args.config).resolve())
    nel = args.nel or nel_executable()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEMO_EVALUATOR_")}
    env.update(DRY_RUN_ENV)
    overrides = []
    for path in blank_paths(config):
        overrides += ["-o", f"{path}={'/abs/x' if path.endswith('_dir') else 'x'}"]

    preflight = [sys.executable, "-m", "evalkit", "preflight", config, "--template"]
    dry_run = [nel, "run", "--config", config, "--dry-run", *overrides] if nel else None
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-") as cwd:
        timed(preflight, env, cwd)  # warm the page cache and the .pyc files
        pre = [timed(preflight, env, cwd) for _ in range(args.n)]
        nel_runs = [timed(dry_run, env, cwd) for _ in range(args.n)] if dry_run else []

    pre_median = statistics.median(t for t, _ in pre)
    print(f"config: {os.path.relpath(config, REPO)}")
    print(f"python: {sys.version.split()[0]}, cpus: {os.cpu_count()}, runs: {args.n}")
    print(
        f"evalkit preflight --template: median {pre_median:.3f} s "
        f"(min {min(t for t, _ in pre):.3f}, exit {pre[0][1]})"
    )
    if nel_runs:
        nel_median = statistics.median(t for t, _ in nel_runs)
        print(
            f"nel run --dry-run:            median {nel_median:.3f} s "
            f"(min {min(t for t, _ in nel_runs):.3f}, exit {nel_runs[0][1]})"
        )
        print(f"ratio: {nel_median / pre_median:.1f}x")
    else:
        print("nel not found: launcher dry-run skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
