"""Benchmark: static `evalkit preflight` vs the launcher's `nel run --dry-run`, one ratio.

Both run as whole processes on the same configs, N times each, interleaved (preflight,
dry-run, preflight, ...) so that a load on the machine slows both alike; prints per
config and overall the median wall-clock time and the CPU seconds (user + sys) of each
tool, and their ratios. Writes nothing into the repository (the dry-run runs in a
temporary directory). Usage, from the repository root:

    bash tests/run.sh --python tests/bench/bench_preflight.py [CONFIG...] [-n 5] [--nel PATH]

The default configs are shipped examples the 0.2.6 launcher accepts once their `???`
values are filled with `-o` overrides (MRCR, the generic AA one; GDPVal's mount blank
needs a mapping no `-o` can write there); preflight runs with --template.

Bytecode: an installed copy has its .pyc files, but PYTHONDONTWRITEBYTECODE=1 in the
environment makes every process compile every module it imports. By default both tools
run with a private, warmed bytecode cache (as installed); --no-pyc keeps the
environment's setting.

Through scripts/evalkit: preflight again, as the skill tells agents to run it (`bash
scripts/evalkit preflight CONFIG --template`, its environment under EVALKIT_HOME, built
once before the timing), paired with the dry-run again, both with
PYTHONDONTWRITEBYTECODE=1 and no bytecode cache of the bench's own, as many clusters'
login environments set it: the wrapper's environment holds the bytecode its install
compiled, the launcher's the bytecode pip compiled. --no-wrapper leaves this out.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from helpers.nel import DRY_RUN_ENV, blank_paths, nel_executable  # noqa: E402

CONFIGS = [
    "recipes/examples/gym/example_mrcr.yaml",
    "recipes/examples/example_eval.yaml",
]


def timed(cmd: list[str], env: dict, cwd: str) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def commands(config: str, nel: str | None) -> tuple[list[str], list[str] | None, list[str]]:
    overrides = []
    for path in blank_paths(config):
        overrides += ["-o", f"{path}={'/abs/x' if path.endswith('_dir') else 'x'}"]
    preflight = [sys.executable, "-m", "evalkit", "preflight", config, "--template"]
    dry_run = [nel, "run", "--config", config, "--dry-run", *overrides] if nel else None
    wrapper = ["bash", str(REPO / "scripts" / "evalkit"), "preflight", config, "--template"]
    return preflight, dry_run, wrapper


def cluster_env(env: dict) -> dict:
    """ENV as a cluster login shell often has it: no bytecode written, no private cache."""
    out = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
    out["PYTHONDONTWRITEBYTECODE"] = "1"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=CONFIGS)
    parser.add_argument("-n", type=int, default=5, help="runs per tool and config (default 5)")
    parser.add_argument(
        "--nel", default=None, help="launcher executable (default: the test venv's nel)"
    )
    parser.add_argument(
        "--no-wrapper", action="store_true", help="leave out the run through scripts/evalkit"
    )
    parser.add_argument(
        "--no-pyc",
        action="store_true",
        help="keep the environment's PYTHONDONTWRITEBYTECODE (every module compiled per run)",
    )
    args = parser.parse_args()
    nel = args.nel or nel_executable()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEMO_EVALUATOR_")}
    env.update(DRY_RUN_ENV)
    wrapped = cluster_env(env)
    print(f"python: {sys.version.split()[0]}, cpus: {os.cpu_count()}, runs: {args.n}")
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-") as cwd:
        if not args.no_pyc:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = os.path.join(cwd, "pycache")
        print(f"bytecode: {'as the environment says' if args.no_pyc else 'warm private cache'}")
        totals: dict[str, list[float]] = {
            "pre_wall": [],
            "pre_cpu": [],
            "nel_wall": [],
            "nel_cpu": [],
        }
        wrapper_totals: dict[str, list[float]] = {k: [] for k in totals}
        for config in args.configs:
            config = str((REPO / config).resolve()) if not os.path.isabs(config) else config
            preflight, dry_run, wrapper = commands(config, nel)
            name = os.path.relpath(config, REPO)
            _pair(name, preflight, dry_run, env, cwd, args.n, totals)
            if not args.no_wrapper:
                built = timed(wrapper, wrapped, cwd)  # builds the environment when stale
                if built[2] not in (0, 1):
                    print(f"{name}: scripts/evalkit failed (exit {built[2]}); left out")
                    continue
                _pair(f"{name} through scripts/evalkit, PYTHONDONTWRITEBYTECODE=1", wrapper,
                      dry_run, wrapped, cwd, args.n, wrapper_totals)  # fmt: skip
    if not totals["nel_wall"]:
        print("nel not found: launcher dry-run skipped")
        return 0
    _ratio("all configs", "preflight", totals)
    if wrapper_totals["pre_wall"]:
        _ratio("through scripts/evalkit", "scripts/evalkit preflight", wrapper_totals)
    return 0


def _pair(name, tool, dry_run, env, cwd, n, totals) -> None:
    """TOOL and the dry-run N times each, interleaved, after one warming run of each."""
    timed(tool, env, cwd)  # warm the page cache (and the bytecode cache)
    if dry_run:
        timed(dry_run, env, cwd)
    pre, ref = [], []
    for _ in range(n):
        pre.append(timed(tool, env, cwd))
        if dry_run:
            ref.append(timed(dry_run, env, cwd))
    print(_line(name, pre, ref))
    totals["pre_wall"] += [t[0] for t in pre]
    totals["pre_cpu"] += [t[1] for t in pre]
    totals["nel_wall"] += [t[0] for t in ref]
    totals["nel_cpu"] += [t[1] for t in ref]


def _ratio(label: str, tool: str, totals: dict) -> None:
    med = {k: statistics.median(v) for k, v in totals.items()}
    print(
        f"{label}: {tool} {med['pre_wall']:.3f} s wall / {med['pre_cpu']:.3f} s cpu, "
        f"nel dry-run {med['nel_wall']:.3f} s wall / {med['nel_cpu']:.3f} s cpu"
    )
    print(
        f"ratio ({label}): {med['nel_wall'] / med['pre_wall']:.1f}x wall-clock, "
        f"{med['nel_cpu'] / med['pre_cpu']:.1f}x cpu (medians)"
    )


def _line(name: str, pre: list, ref: list) -> str:
    p_wall, p_cpu = statistics.median(t[0] for t in pre), statistics.median(t[1] for t in pre)
    text = f"{name}: preflight {p_wall:.3f} s wall / {p_cpu:.3f} s cpu (exit {pre[0][2]})"
    if ref:
        n_wall, n_cpu = statistics.median(t[0] for t in ref), statistics.median(t[1] for t in ref)
        text += f"; nel {n_wall:.3f} s / {n_cpu:.3f} s (exit {ref[0][2]}); {n_wall / p_wall:.1f}x"
    return text


if __name__ == "__main__":
    raise SystemExit(main())
