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


def _text(tasks: list[dict]) -> str:
    from evalkit.report import bar, format_number, table

    rows = []
    for t in tasks:
        if t.get("benchmark") == "mrcr":
            rows.append(
                [
                    t["task"],
                    "mrcr",
                    "pass@1/accuracy",
                    format_number(t["pass_at_1"]),
                    "0-100",
                    "",
                    str(t["rollouts"] or "?"),
                ]
            )
        else:
            err = t.get("stderr")
            rows.append(
                [
                    t["task"],
                    t.get("benchmark") or "?",
                    t.get("metric") or "(none)",
                    format_number(t.get("value"), 4 if t.get("scale") == "0-1" else 2),
                    t.get("scale") or "?",
                    "" if err is None else format_number(err, 4),
                    "",
                ]
            )
    headers = ["task", "benchmark", "metric", "value", "scale", "stderr", "rollouts"]
    out = [table(headers, rows).rstrip()]
    for t in tasks:
        if t.get("benchmark") == "mrcr":
            out.append(f"\n{t['task']} ({t['agent']}): needle strata, pass@1 (0-100)")
            for needles, value in t["strata"].items():
                fraction = None if value is None else value / 100.0  # bar() takes 0-1
                out.append(f"  {needles} needles  {bar(fraction, 30)}  {format_number(value)}")
            out.append(f"  prefix_matched {format_number(t['prefix_matched'], 3)} (0-1)")
        elif t.get("available"):
            out.append(
                f"\n{t['task']}: no documented headline key; scores present: "
                + ", ".join(t["available"])
            )
    return "\n".join(out).rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.benchmarks import task_score
    from evalkit.report import write_json
    from evalkit.runs.run import load_runs

    tasks = [task_score(run) for run in load_runs(args.run)]
    if args.format == "json":
        write_json({"tasks": tasks})
    else:
        sys.stdout.write(_text(tasks))
    missing = [t for t in tasks if t.get("pass_at_1", t.get("value")) is None]
    return 1 if missing else 0
