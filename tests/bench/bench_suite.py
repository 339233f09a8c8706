"""Benchmark: the two test tiers, `bash tests/run.sh --fast` and the full run.

Runs each tier once as the developer would (the same script, its default workers) and
prints its wall-clock time, the CPU seconds of the run and its children (user + sys; on
a shared machine this moves far less than wall-clock), the pytest summary line, and the
test files that cost the most CPU (from tests/helpers/cpuprofile.py, per test: this
process plus the children it waited for). Usage, from the repository root:

    python3 tests/bench/bench_suite.py                 # both tiers
    python3 tests/bench/bench_suite.py --tier fast --top 15
    python3 tests/bench/bench_suite.py --tier full -- -x   # after --: extra pytest args
    python3 tests/bench/bench_suite.py --tier fast --repeat 3   # min / median / max

On a shared machine the same tests can cost half as much CPU again from one hour to the
next; --repeat shows the spread, and a figure is worth quoting with it.

The targets (issue 41): the fast tier under 60 s, the full run under 8 minutes, on a
2-core machine with a warm test environment.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed).*) in [\d.]+s.*$", re.M)


def run_tier(tier: str, extra: list[str], top: int) -> tuple[int, float]:
    argv = ["bash", str(REPO / "tests" / "run.sh")]
    argv += ["--fast"] if tier == "fast" else []
    argv += ["-q", "-p", "no:randomly", *extra]
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-suite-") as folder:
        env = {**os.environ, "EVALKIT_TEST_PROFILE": folder}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rows = []
        for path in Path(folder).glob("*.jsonl"):
            rows += [json.loads(line) for line in path.read_text().splitlines() if line]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = SUMMARY.findall(proc.stdout)
    print(f"== {tier} tier: bash tests/run.sh {' '.join(argv[2:])}")
    print(f"wall {wall:.1f} s, cpu {cpu:.1f} s (user+sys, all processes), exit {proc.returncode}")
    print(f"pytest: {found[-1] if found else proc.stdout.strip().splitlines()[-1:]}")
    per_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        entry = per_file[row["id"].split("::")[0]]
        entry[0] += row["cpu"] + row["child_cpu"]
        entry[1] += row["child_cpu"]
        entry[2] += 1
    in_tests = sum(v[0] for v in per_file.values())
    spawning = sum(1 for row in rows if row["spawns"])
    print(f"cpu inside tests {in_tests:.1f} s over {len(rows)} tests ({spawning} spawn processes)")
    print(f"{'cpu s':>7} {'of it children':>14} {'tests':>5}  file")
    for name, (total, kids, count) in sorted(per_file.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{total:7.1f} {kids:14.1f} {count:5d}  {name}")
    return proc.returncode, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=["fast", "full", "both"], default="both")
    parser.add_argument("--top", type=int, default=10, help="test files listed (default 10)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tier (default 1)")
    parser.add_argument("extra", nargs="*", help="pytest arguments (after --)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, python {sys.version.split()[0]}")
    print(f"workers: {os.environ.get('EVALKIT_TEST_WORKERS', 'auto (one per core)')}")
    worst = 0
    for tier in ("fast", "full") if args.tier == "both" else (args.tier,):
        walls = []
        for _ in range(max(1, args.repeat)):
            code, wall = run_tier(tier, args.extra, args.top)
            worst, walls = max(worst, code), walls + [wall]
        if len(walls) > 1:
            walls.sort()
            print(
                f"== {tier} tier over {len(walls)} runs: wall min {walls[0]:.1f} s, "
                f"median {walls[len(walls) // 2]:.1f} s, max {walls[-1]:.1f} s"
            )
    return worst


if __name__ == "__main__":
    sys.exit(main())
