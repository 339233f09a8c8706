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

    document = report_document(validate_path(args.run, expected_override=args.expected))
    if args.format == "json":
        write_json(document)
    else:
        sys.stdout.write(report_text(document, args.run))
    return 0 if document["verdict"] == VALID else 1
