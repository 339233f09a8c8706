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
        help="processes for grading (default: 1 below 64 MB, else one per core, at most 8)",
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


def build_document(result, aggregate_path) -> tuple[dict, int]:
    from evalkit.benchmarks.mrcr.aggregate import (
        compare_metrics,
        read_aggregate_entries,
        select_agent,
    )
    from evalkit.benchmarks.mrcr.leaks import leak_reading

    agg = result.aggregate
    # a re-run rollout may differ in its stored reward or in its response: count either
    conflicts = max(agg.conflicting_duplicates, result.stored.conflicting_duplicates)
    agrees, diffs, agent = None, [], None
    if aggregate_path is not None:
        wanted = result.agents[0] if len(result.agents) == 1 else None
        agent, metrics = select_agent(
            read_aggregate_entries(aggregate_path), wanted, aggregate_path
        )
        diffs = compare_metrics(agg.gym_metrics(), metrics)
        agrees = not diffs
    doc = {
        "rollouts": agg.rollouts,
        "duplicates": agg.duplicates,
        "truncated_lines": int(result.stats.truncated_last_line),
        "pass_at_1": agg.pass_at_1,
        "strata": agg.strata,
        "prefix_matched": agg.prefix_matched,
        "reward_mismatches": result.reward_mismatches,
        "aggregate_agrees": agrees,
        "conflicting_duplicates": conflicts,
        "mean_reward": agg.mean_reward,
        "rollouts_per_task": agg.max_rollouts_per_task,
        "pass_at_1_avg_of_k": agg.pass_at_1_avg_of_k,
        "stored_pass_at_1": result.stored.pass_at_1,
        "flags": result.flags,
        "reasoning_leak": leak_reading(
            result.flags.get("reasoning_leak", 0), agg.rollouts + agg.duplicates
        ),
        "mismatch_examples": result.mismatch_examples,
        "aggregate_diffs": diffs[:10],
        "agent": agent or (result.agents[0] if len(result.agents) == 1 else None),
        "rollouts_file": str(result.path),
        "aggregate_file": None if aggregate_path is None else str(aggregate_path),
        "lines": result.stats.lines,
        "blank_lines": result.stats.blank_lines,
    }
    failed = (
        result.reward_mismatches > 0
        or agrees is False
        or result.stats.truncated_last_line
        or conflicts > 0
    )
    return doc, 1 if failed else 0


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.benchmarks.mrcr.regrade import regrade_file
    from evalkit.errors import UsageError
    from evalkit.render.regrade import report_text
    from evalkit.render.report import write_json

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    rollouts, aggregate = _locate(args.run)
    progress = _progress_printer(args.progress or sys.stderr.isatty())
    result = regrade_file(rollouts, jobs=args.jobs, progress=progress)
    doc, code = build_document(result, aggregate)
    if args.format == "json":
        write_json(doc)
    else:
        sys.stdout.write(report_text(doc, code))
    return code
