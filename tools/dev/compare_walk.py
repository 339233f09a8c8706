"""Count how often compare's walk climbs back up a layer (issue 37's structural measure).

Runs `comparison.suite.compare_paths(BASE, CAND)` under a profiler and follows compare's
arguments: every call into an evalkit function that receives a task run (a
`runs.layout.TaskRun` or a `benchmarks.view.TaskView`, `self` included) from a function
in a higher layer (commands > render > comparison > checks > benchmarks > runs, the order
tests/test_architecture.py enforces) is a descent the walk must climb back from. Each
distinct (caller, callee) pair counts once, however often a loop repeats it.

Two figures: climbs back into the layers above benchmarks (commands, render, comparison,
checks: a higher layer asking the task run something again), and every downward edge
(adding the adapters' own reads of their run in runs/).

Usage: python tools/dev/compare_walk.py BASE CAND [--list]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

LAYERS = ("runs", "benchmarks", "checks", "comparison", "render", "commands")


def _where(filename: str) -> tuple[int | None, str]:
    parts = Path(filename).parts
    if "evalkit" not in parts:
        return None, ""
    rest = parts[parts.index("evalkit") + 1 :]
    top = rest[0] if len(rest) > 1 else rest[0].removesuffix(".py")
    return (LAYERS.index(top) if top in LAYERS else None), "/".join(rest)


def walk(base: str | Path, cand: str | Path) -> dict[tuple[str, str], tuple[str, str]]:
    """{(caller, callee): (caller layer, callee layer)} for each downward edge."""
    from evalkit.comparison.suite import compare_paths
    from evalkit.runs.layout import TaskRun

    try:
        from evalkit.benchmarks.view import TaskView

        carriers: tuple[type, ...] = (TaskRun, TaskView)
    except ImportError:  # a tree from before the views
        carriers = (TaskRun,)
    edges: dict[tuple[str, str], tuple[str, str]] = {}

    def profile(frame, event, _arg):
        if event != "call":
            return
        code = frame.f_code
        layer, name = _where(code.co_filename)
        if layer is None:
            return
        args = [frame.f_locals.get(n) for n in code.co_varnames[: code.co_argcount]]
        if not any(isinstance(a, carriers) for a in args):
            return
        caller = frame.f_back
        while caller is not None and _where(caller.f_code.co_filename)[0] is None:
            caller = caller.f_back
        if caller is None:
            return
        up, up_name = _where(caller.f_code.co_filename)
        if up > layer:
            key = (f"{up_name}:{caller.f_code.co_name}", f"{name}:{code.co_name}")
            edges.setdefault(key, (LAYERS[up], LAYERS[layer]))

    sys.setprofile(profile)
    try:
        compare_paths(base, cand, bootstrap=200)
    finally:
        sys.setprofile(None)
    return edges


def climbs_above_benchmarks(edges: dict) -> list[tuple[str, str]]:
    top = LAYERS.index("benchmarks")
    return [k for k, (up, _down) in edges.items() if LAYERS.index(up) > top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("cand")
    parser.add_argument("--list", action="store_true", help="print every edge")
    args = parser.parse_args(argv)
    edges = walk(args.base, args.cand)
    above = climbs_above_benchmarks(edges)
    if args.list:
        for (caller, callee), (up, down) in edges.items():
            print(f"{up:>10} {caller} -> {down} {callee}")
    print(f"climbs into commands/render/comparison/checks: {len(above)}")
    print(f"downward edges, every layer: {len(edges)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
