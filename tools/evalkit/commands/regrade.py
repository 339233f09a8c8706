"""`evalkit regrade`: grade every MRCR rollout again and check the stored numbers."""

from __future__ import annotations

import argparse

SUMMARY = "re-grade every MRCR rollout with NeMo Gym's rules and check rewards and aggregates"
DESCRIPTION = """\
Stream evaluator_rollouts.jsonl (lines of several MB, files of several GB, in bounded
memory), grade every rollout again exactly as NeMo Gym does (message text only,
str.strip(), prefix gate, prefix removed once from both sides,
difflib.SequenceMatcher(None, response, answer).ratio() with its default autojunk), and
compare each stored reward (exact float equality) and the aggregate metrics file
(pass@1, avg-of-k, needle strata, means; 1e-6 relative) with the recomputation.

RUN is an invocation, task or artifacts directory, or a rollouts .jsonl file.
Exit 0 when every stored reward matches and the aggregate agrees (or is absent);
1 on a mismatch, a disagreeing aggregate, conflicting duplicates or a truncated last
line; 2 on unreadable input (a malformed line is named FILE:LINE)."""
EXAMPLES = """\
  evalkit regrade runs/20261130_101500-0123456789abcdef/nemo_gym.0
  evalkit regrade copied/evaluator_rollouts.jsonl --jobs 2
  evalkit regrade tests/data/runs/mrcr-canary --format json
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="run directory or rollouts .jsonl file")
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes for grading, at most one per usable CPU core (default: 1 below "
        "64 MB, else one per core, at most 8)",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="report progress on stderr even when it is not a terminal",
    )


def _locate(run: str):
    """(rollouts file, aggregate file or None) for a run path or a .jsonl file."""
    from pathlib import Path

    from evalkit.errors import InputError
    from evalkit.runs.layout import AGGREGATE_FILE
    from evalkit.runs.run import load_runs

    path = Path(run)
    if path.is_file() and path.suffix == ".jsonl":
        aggregate = path.with_name(f"{path.stem}_aggregate_metrics.json")
        if not aggregate.is_file():
            aggregate = path.with_name(AGGREGATE_FILE)
        return path, (aggregate if aggregate.is_file() else None)
    tasks = [t for t in load_runs(path) if t.rollouts_path.is_file()]
    if not tasks:
        raise InputError("no evaluator_rollouts.jsonl under this run (not a NeMo Gym run?)", path)
    if len(tasks) > 1:
        names = ", ".join(t.name for t in tasks)
        raise InputError(f"several Gym tasks ({names}); pass one task directory", path)
    task = tasks[0]
    return task.rollouts_path, (task.aggregate_path if task.aggregate_path.is_file() else None)


def _progress_printer(enabled: bool):
    import sys
    import time

    if not enabled:
        return None
    last = [0.0]

    def show(done: int, done_bytes: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 2.0 or done_bytes >= total:
            last[0] = now
            parts = f" ({done} parts done)" if done else ""
            message = f"regrade: {done_bytes / 1e6:.1f}/{total / 1e6:.1f} MB{parts}"
            print(message, file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.benchmarks.mrcr.regrade import regrade_document, regrade_file
    from evalkit.errors import UsageError
    from evalkit.render.regrade import report_text
    from evalkit.render.report import write_json

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    rollouts, aggregate = _locate(args.run)
    progress = _progress_printer(args.progress or sys.stderr.isatty())
    result = regrade_file(rollouts, jobs=args.jobs, progress=progress)
    doc, code = regrade_document(result, aggregate)
    if args.format == "json":
        write_json(doc)
    else:
        sys.stdout.write(report_text(doc, code))
    return code
