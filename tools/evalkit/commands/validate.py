"""`evalkit validate` (not yet implemented)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "validate (not yet implemented)"
EXAMPLES = "  evalkit validate --help\n"
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*")


def run(args: argparse.Namespace) -> int:
    print("evalkit validate: not implemented yet", file=sys.stderr)
    return 2
