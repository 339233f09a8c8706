"""`evalkit report BASE CAND -o report.html`: the release verdict as a page to share."""

from __future__ import annotations

import argparse

SUMMARY = "write the release report: suite table, forest plot, strata, trust checks (HTML/MD)"
DESCRIPTION = """\
Compare a candidate suite with a baseline suite (two invocation directories, or two task
directories) exactly as `evalkit compare` does, and write one self-contained report:
the suite table with the gate, a forest plot of per-task deltas with their 95 % intervals
and each task's margin, the MRCR needle strata, each run's validation status, the trust
checks and the provenance of both sides.

  --format text      (default) write HTML to -o FILE and print the gate on stdout
  --format html      HTML to -o FILE, or to stdout without -o
  --format markdown  Markdown (to paste into a release document) to -o FILE or stdout
  --format json      the suite document, as `evalkit compare --format json` gives it

The HTML needs no network access to view: no script, styles inline, the plot is inline
SVG drawn by matplotlib. Exit 0 only when the gate is pass; 1 otherwise; 2 on unreadable
input or a bad gate/reference file."""
EXAMPLES = """\
  evalkit report runs/bf16 runs/nvfp4 --gate gate.yaml -o report.html
  evalkit report runs/bf16 runs/nvfp4 --gate gate.yaml --reference published.yaml \\
      --format markdown -o report.md
"""
FORMATS = ("text", "html", "markdown", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    from evalkit.commands import compare

    compare.configure(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the report (required for --format text); never an input",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing -o file")
    parser.add_argument("--title", default="Release comparison", help="the report's heading")


def run(args: argparse.Namespace) -> int:
    import sys

    from evalkit.commands.compare import load_options
    from evalkit.comparison.suite import compare_suite
    from evalkit.errors import UsageError
    from evalkit.render.output import check_destination, write_output, write_structured
    from evalkit.render.redact import redact_data
    from evalkit.render.release_report import render_html, render_markdown
    from evalkit.render.report import write_json

    if args.format == "text" and not args.output:
        raise UsageError("-o FILE is required for the HTML report (or use --format markdown)")
    inputs = [args.base, args.cand, args.gate, args.reference]
    if args.output:  # refuse before the work, not after it
        check_destination(args.output, inputs, args.force)
    options = load_options(args)
    document = compare_suite(
        args.base,
        args.cand,
        gate=options["gate"],
        reference=options["reference"],
        seed=args.seed,
        bootstrap=args.bootstrap,
        weighting=args.weights,
        default_margin=args.margin,
        accept=options["accept"],
    )
    code = 0 if document["gate"] == "pass" else 1
    if args.format == "json":
        write_json(document)
        return code
    shown = redact_data(document)  # before escaping: HTML entities would hide a secret's shape
    if args.format == "markdown":
        body = render_markdown(shown, args.title)
    else:
        body = render_html(shown, args.title)
    if args.output:
        write_output(args.output, body, inputs, args.force)
        if args.format == "text":
            print(f"{args.output}: gate {document['gate']}")
    elif args.format == "html":
        write_structured(body)  # built from redacted data: no text rewrite after escaping
    else:
        sys.stdout.write(body)
    return code
