"""`evalkit check-skill` (not yet implemented)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "check-skill (not yet implemented)"
EXAMPLES = "  evalkit check-skill --help\n"
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*")


def run(args: argparse.Namespace) -> int:
    print("evalkit check-skill: not implemented yet", file=sys.stderr)
    return 2
