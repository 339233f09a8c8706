"""`evalkit validate RUN`: is a finished run fit to quote? Checks, then a verdict."""

from __future__ import annotations

import argparse

from evalkit.commands.argtypes import positive_int

SUMMARY = "check a finished run before quoting its score: valid, incomplete or invalid"
DESCRIPTION = """\
Check a finished nel 0.2.6 run (an invocation directory, a task directory such as
nemo_gym.0, or its artifacts/ directory) against the completed-run policy in
references/run-validation.md, and give a verdict:

  valid       every check passed (warnings allowed): the score may be quoted
  incomplete  the run did not finish (missing rollouts, truncated file, no aggregate):
              resume it, then validate again
  invalid     the score must not be quoted (wrong pin, leaking reasoning, too many capped
              responses, conflicting records, tampered aggregate, pre_cmd failure)

MRCR tasks get every check (rollout-count, duplicates, truncation, prefix-gate,
output-limit, aggregate-agreement, gym-pin, pre-cmd, preemption, log-errors,
http-retries); other tasks results-file, score, output-limit, log-errors, and pre-cmd,
http-retries and preemption when they have the client or server log those read.
The rules are documented in references/run-validation.md; `evalkit status` runs the
same ones on a growing run.

An incomplete task is also read for why it ended (the failure signatures `evalkit
status` names, references/failures.md): when its logs name a cause, the answer is that
cause, its fix and the relaunch or resume command it calls for, not a plain resume that
would fail the same way.
"""
EXAMPLES = """\
  evalkit validate runs/20261130_101500-0123456789abcdef/nemo_gym.0
  evalkit validate runs/20261130_101500-0123456789abcdef --format json
  evalkit validate runs/canary/nemo_gym.0 --expected 20
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="invocation, task or artifacts directory")
    parser.add_argument(
        "--expected",
        type=positive_int,
        metavar="N",
        help="expected number of MRCR rollouts (overrides the variant and ++limit counts)",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.checks.model import VALID
    from evalkit.checks.validate import report_document, validate_path
    from evalkit.render.report import write_json
    from evalkit.render.validate import report_text
    from evalkit.runs.nelnext import is_nel_next_run

    if is_nel_next_run(args.run):
        return _nel_next(args)
    document = report_document(validate_path(args.run, expected_override=args.expected))
    triages = _why_incomplete_tasks_ended(args.run, document, args.expected)
    for entry in document["tasks"]:
        if entry["task"] in triages:
            entry["triage"] = triages[entry["task"]].to_json()
    if args.format == "json":
        write_json(document)
    else:
        sys.stdout.write(report_text(document, args.run, triages))
    return 0 if document["verdict"] == VALID else 1


def _nel_next(args: argparse.Namespace) -> int:
    """A nel-next run directory: the TB2.1 health screen (for TB2.1 runs), then pass@1."""
    import sys

    from evalkit.checks.model import VALID
    from evalkit.render.nelnext import nel_next_document, nel_next_text
    from evalkit.render.report import write_json
    from evalkit.runs.nelnext import load

    document = nel_next_document(load(args.run))
    if args.format == "json":
        write_json(document)
    else:
        sys.stdout.write(nel_next_text(document, args.run))
    return 0 if document["verdict"] == VALID else 1


def _why_incomplete_tasks_ended(run: str, document: dict, expected: int | None) -> dict:
    """Task name -> its triage (checks/failures), for each incomplete task whose logs name
    a cause; read as `evalkit status` reads them, so both commands give one answer."""
    import time

    from evalkit.checks.failures import attach
    from evalkit.runs.layout import resolve_task_runs
    from evalkit.status import TaskMonitor

    # One task's document leaves the task out of its checks (None stands for it).
    names = {c.get("task") for c in document["checks"] if c.get("kind") == "incomplete"}
    if not names:
        return {}
    tasks = [t for t in resolve_task_runs(run) if None in names or t.name in names]
    now = time.time()
    statuses = [TaskMonitor(t, expected).refresh(now) for t in tasks]
    return {t.task: t for t in attach.attach(tasks, statuses) if t.cause is not None}
