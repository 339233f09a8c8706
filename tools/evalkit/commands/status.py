"""`evalkit status RUN`: a run that is still being written, at a glance."""

from __future__ import annotations

import argparse

from evalkit.commands.argtypes import positive_float, positive_int

SUMMARY = "a running run at a glance: progress, ETA, walltime left and early warnings"
DESCRIPTION = """\
Read a nel 0.2.6 run while it is written (an invocation directory, a task directory such
as nemo_gym.0, or its artifacts/ directory, on the shared file system or synced from it)
and show per task:

  state     starting (no rollouts yet), running, finished, failed, or stopped_unfinished
            (walltime over, nothing written for --stale-after seconds, or run.sub's
            auto-resume handler ended the job chain, its line quoted; resume it)
  progress  rollouts done of expected (the expectation validate uses, a canary's
            ++limit included), the recent rate and the ETA
  walltime  time left from run.sub's #SBATCH --time and the job's start
            (.job_start_time, written by run.sub), and whether the run finishes inside it

Early warnings run validate's own checks on what is written so far: gym-pin, pre-cmd,
prefix-gate and output-limit (after 20 rollouts), duplicates, preemption, log-errors,
http-retries. Each says what to do: stop (kill and fix), let it run, or resume.
A partial last line is a write in progress, never an error; nothing is modified.

An ended task whose harness leaves per-item data (lm-eval, HLE) shows its items by
outcome: scored as answers, or failed by cause (truncated, reasoning_only, unparsed,
judge_error, endpoint_error), the same counts the report draws; a task off NeMo Gym also
shows its run-level failures (no results.yml, failed requests, truncation, retries and
"maximum context length" lines in the client log).

A task that ended without a valid result gets its cause from the failure signatures
(checks/failures, references/failures.md): the evidence (log file and line, redacted),
whether the same config can succeed, the fix as a config change, the attempts counted
from the job logs ("do not resubmit" when the same failure repeats), and the next
command with the run's ids. --sacct/--squeue add Slurm's view and say where it and the
logs disagree.

--watch N refreshes every N seconds until every task has ended, reading only what was
appended since the previous refresh. A task stopped by its walltime is awaiting_resume
(run.sub queued the job that resumes it) and is watched until that job starts.
Exit 1 when a warning says to stop or a task failed, else 0.
"""
EXAMPLES = """\
  evalkit status runs/20261130_101500-0123456789abcdef
  evalkit status runs/20261130_101500-0123456789abcdef/nemo_gym.0 --watch 60
  evalkit status runs/canary/nemo_gym.0 --format json
  evalkit status runs/20261130_101500-0123456789abcdef --sacct sacct.txt --squeue squeue.txt
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="invocation, task or artifacts directory")
    parser.add_argument(
        "--watch",
        type=positive_float,
        metavar="SECONDS",
        help="refresh every SECONDS until every task has ended (json: one document a line)",
    )
    parser.add_argument(
        "--expected",
        type=positive_int,
        metavar="N",
        help="expected number of rollouts (overrides the variant and ++limit counts)",
    )
    parser.add_argument(
        "--sacct",
        metavar="FILE",
        help="sacct output to read beside the logs (-P --format=JobID,State,ExitCode,Elapsed "
        "or the default table); says where Slurm and the logs disagree",
    )
    parser.add_argument("--squeue", metavar="FILE", help="squeue output (the default table)")
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="the served checkpoint (its config.json): a topology fix is then computed with "
        "evalkit's sizing model (with --gpu-mem-gib)",
    )
    parser.add_argument(
        "--gpu-mem-gib",
        type=positive_float,
        metavar="G",
        help="each GPU's memory, for --checkpoint",
    )
    parser.add_argument(
        "--stale-after",
        type=positive_float,
        default=1200.0,
        metavar="SECONDS",
        help="a task whose files have not changed for this long has stopped (default 1200)",
    )


def _sizer(checkpoint: str | None, gpu_mem_gib: float | None):
    """What the failure signatures size a topology fix with (--checkpoint with
    --gpu-mem-gib): for a TP, the KV GiB each GPU keeps when one request of the task's
    length fits (evalkit.sizing.plan), else None."""
    if checkpoint is None and gpu_mem_gib is None:
        return None
    from evalkit.checkpoint import load_checkpoint
    from evalkit.errors import InputError
    from evalkit.sizing import GIB, SizeRequest, plan

    if checkpoint is None or gpu_mem_gib is None:
        raise InputError("--checkpoint and --gpu-mem-gib go together (the sizing model needs both)")
    ckpt = load_checkpoint(checkpoint)

    def sizing(tp: int, max_len: int, per_node: int, kv_dtype: str, util: float) -> float | None:
        request = SizeRequest(
            gpu_mem_gib=gpu_mem_gib,
            gpus_per_node=per_node,
            max_model_len=max_len,
            parallelism=1,
            num_nodes=-(-tp // per_node),
            kv_cache_dtype=kv_dtype,
            gpu_memory_utilization=util,
            tensor_parallel_size=tp,
        )
        try:
            sized = plan(ckpt, request)
        except (InputError, ValueError, ZeroDivisionError):
            return None
        return sized.kv_pool_bytes_per_gpu / GIB if sized.fits else None

    return sizing


def run(args: argparse.Namespace) -> int:
    import sys
    import time

    from evalkit.checks.failures import attach
    from evalkit.render.report import write_json
    from evalkit.render.status import render
    from evalkit.status import RunMonitor, document, ended, exit_code

    slurm = attach.slurm_rows(args.sacct, args.squeue)
    sizing = _sizer(args.checkpoint, args.gpu_mem_gib)  # a bad input fails first
    monitor = RunMonitor(args.run, args.expected, args.stale_after)
    triager = attach.Triager([m.task for m in monitor.tasks], slurm, sizing)
    if args.watch is None:
        statuses = monitor.refresh(time.time())
        triages = triager.refresh(statuses)  # why a task ended (checks/failures)
        if args.format == "json":
            write_json(attach.add_to_document(document(statuses), triages))
        else:
            sys.stdout.write(render(statuses))
        return max(exit_code(statuses), attach.exit_code(triages))

    in_place = args.format == "text" and sys.stdout.isatty()
    while True:
        statuses = monitor.refresh(time.time())
        triages = triager.refresh(statuses)
        if args.format == "json":
            write_json(attach.add_to_document(document(statuses), triages), indent=None)
        else:
            # A terminal gets the frame redrawn in place; a pipe or file gets each frame.
            sys.stdout.write(("\x1b[H\x1b[2J" if in_place else "\n") + render(statuses))
        sys.stdout.flush()
        if ended(statuses):
            return max(exit_code(statuses), attach.exit_code(triages))
        time.sleep(args.watch)
