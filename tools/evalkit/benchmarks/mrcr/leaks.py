"""Reasoning markup in a graded answer, and the one line between a note and a problem.

A response whose text still carries `<think>` markup was not split by the reasoning
parser; Gym grades it as it is, so the answer usually fails the prefix gate. One such
answer in a run is worth mentioning; a share above LEAK_WARN_ABOVE means the parser is
not doing its job. validate (prefix-gate) and regrade (its flags) both read this.
"""

from __future__ import annotations

from typing import Any

LEAK_WARN_ABOVE = 0.05  # share of rollouts; the same line as for length-capped responses


def leaked_reasoning(text: str | None) -> bool:
    """Reasoning markup in the graded text: the parser did not split it off."""
    return text is not None and ("</think>" in text or text.lstrip().startswith("<think>"))


def leak_reading(count: int, total: int) -> dict[str, Any]:
    """How to read COUNT leaking responses out of TOTAL: level none | note | problem, and
    a sentence that names the threshold."""
    share = count / total if total else 0.0
    level = "none" if not count else "problem" if share > LEAK_WARN_ABOVE else "note"
    side = ">" if level == "problem" else "<="
    message = (
        f"{count} of {total} responses carry reasoning markup ({share:.1%} {side} "
        f"{LEAK_WARN_ABOVE:.0%}: "
        + (
            "a problem, check the reasoning parser and process_reasoning_traces)"
            if level == "problem"
            else "a note; a problem above that share)"
        )
    )
    return {
        "count": count,
        "total": total,
        "share": share,
        "threshold": LEAK_WARN_ABOVE,
        "level": level,
        "message": message,
    }
