"""`evalkit preflight` (not yet implemented)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "preflight (not yet implemented)"
EXAMPLES = "  evalkit preflight --help\n"
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*")


def run(args: argparse.Namespace) -> int:
    print("evalkit preflight: not implemented yet", file=sys.stderr)
    return 2
