"""argparse value types shared by the subcommands."""

from __future__ import annotations

import argparse
import math


def positive(kind: type, noun: str):
    """An argparse type: `kind(text)`, which must be finite and greater than zero."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        # `not value > 0` also turns away NaN, which compares false with everything.
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    return parse


positive_float = positive(float, "a number")
positive_int = positive(int, "an integer")
