"""`evalkit score` (not yet implemented)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "score (not yet implemented)"
EXAMPLES = "  evalkit score --help\n"
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*")


def run(args: argparse.Namespace) -> int:
    print("evalkit score: not implemented yet", file=sys.stderr)
    return 2
