"""`evalkit score`: the headline score of every task in a run, with its scale."""

from __future__ import annotations

import argparse

SUMMARY = "print every task's headline score (MRCR from its aggregate file) with its scale"
DESCRIPTION = """\
Print the headline score of each task under RUN (an invocation directory, a task
directory such as nemo_gym.0, or its artifacts/ directory).

MRCR (NeMo Gym) scores come from artifacts/evaluator_rollouts_aggregate_metrics.json,
the entry whose agent name matches the run's variant; results.yml holds no MRCR score.
MRCR pass@1 and its needle strata are 0-100, prefix_matched is 0-1. Other tasks are read
from results.yml with the documented key per task and reported on their own scale
(0-100, 0-1, or -100..100 for the Omniscience index); nothing is rescaled.

Exit 0 when every task has a score, 1 when a task has none, 2 on unreadable input."""
EXAMPLES = """\
  evalkit score runs/20261130_101500-0123456789abcdef/nemo_gym.0
  evalkit score runs/20261130_101500-0123456789abcdef --format json
  evalkit score tests/data/runs/mrcr-canary
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="invocation, task or artifacts directory")


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.benchmarks import task_score
    from evalkit.render.report import write_json
    from evalkit.render.score import report_text
    from evalkit.runs.run import load_runs

    tasks = [task_score(run) for run in load_runs(args.run)]
    if args.format == "json":
        write_json({"tasks": tasks})
    else:
        sys.stdout.write(report_text(tasks, args.run))
    missing = [t for t in tasks if t.get("pass_at_1", t.get("value")) is None]
    return 1 if missing else 0
