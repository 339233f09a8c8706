"""MRCR grading with NeMo Gym's semantics (resources_servers/mrcr at the pinned commit).

Gym differs from the dataset card's grader in one place: it strips the response text
(Python `str.strip`) before the prefix gate, and only the response. Everything else is
the card's rule: a response that does not start with the 10-character prefix scores 0;
otherwise the prefix is removed once from both sides and the score is
`difflib.SequenceMatcher(None, response, answer).ratio()` with the default autojunk.
Argument order and autojunk change the number, so neither may be "improved" here.

The ratio comes from `evalkit._seqmatch` (a C build of the same algorithm, bit-identical,
tested against difflib) when the package was built with a compiler, else (or with
EVALKIT_PURE_DIFFLIB=1) from difflib.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from difflib import SequenceMatcher
from typing import Any

from evalkit.runs.rollouts import join_message_text


def _difflib_ratio(response: str, answer: str) -> float:
    return SequenceMatcher(None, response, answer).ratio()


# EVALKIT_PURE_DIFFLIB=1 grades with difflib itself, to cross-check the C build on any run.
_ratio = _difflib_ratio
if not os.environ.get("EVALKIT_PURE_DIFFLIB"):
    # Installed without a C compiler: difflib gives the same numbers.
    with contextlib.suppress(ImportError):
        from evalkit._seqmatch import ratio as _ratio


def message_text(response: Mapping[str, Any]) -> str | None:
    """The graded text of a Gym `response` object (a dict as decoded from JSON)."""
    output = response.get("output") if isinstance(response, Mapping) else None
    return join_message_text(output or ())


def grade(response_text: str | None, expected_answer: str, prefix: str) -> tuple[float, bool]:
    """(reward, prefix_matched) exactly as Gym's verify() computes them."""
    text = (response_text or "").strip()
    if not text.startswith(prefix):
        return 0.0, False
    response = text.removeprefix(prefix)
    answer = expected_answer.removeprefix(prefix)
    return float(_ratio(response, answer)), True
