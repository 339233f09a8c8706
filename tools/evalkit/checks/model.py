"""A run check's result and how results make a verdict; the policy numbers the checks
apply (references/run-validation.md, "What evalkit validate checks")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

PASS, WARN, FAIL = "pass", "warn", "fail"
VALID, INCOMPLETE, INVALID = "valid", "incomplete", "invalid"

# Policy numbers (references/run-validation.md, "What evalkit validate checks").
PREFIX_INVALID_BELOW = 0.25  # mean prefix_matched; golden 1M run: about 0.55
PREFIX_WARN_BELOW = 0.45
LENGTH_INVALID_ABOVE = 0.10  # fraction of responses with finish_reason "length"; golden 2.4 %
LENGTH_WARN_ABOVE = 0.05
AGGREGATE_REL_TOL = 1e-6  # Gym's own sums differ from a recomputation by about 1e-13
AGGREGATE_ABS_TOL = 1e-9  # so that two zeros (or 1e-12 vs 0) still agree


@dataclass(frozen=True)
class Check:
    id: str
    status: str  # pass | warn | fail
    message: str
    kind: str | None = None  # for a fail: the verdict it forces (invalid | incomplete)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id, "status": self.status, "message": self.message}
        if self.kind is not None:
            doc["kind"] = self.kind
        return doc


def passed(check_id: str, message: str) -> Check:
    return Check(check_id, PASS, message)


def warned(check_id: str, message: str) -> Check:
    return Check(check_id, WARN, message)


def failed(check_id: str, kind: str, message: str) -> Check:
    return Check(check_id, FAIL, message, kind)


def verdict(checks: Iterable[Check]) -> str:
    """Any invalid failure -> invalid; else any incomplete failure -> incomplete; else valid."""
    kinds = {c.kind for c in checks if c.status == FAIL}
    if INVALID in kinds:
        return INVALID
    if INCOMPLETE in kinds:
        return INCOMPLETE
    return VALID


def worst(verdicts: Iterable[str]) -> str:
    order = (VALID, INCOMPLETE, INVALID)
    return max(verdicts, key=order.index, default=VALID)


# --------------------------------------------------------------------------- rollout count


@dataclass(frozen=True)
class Expectation:
    count: int
    source: str  # how the number was derived, quoted in the message


def expected_rollouts(
    variant_rows: int | None,
    variant_name: str | None,
    *,
    repeats: int = 1,
    limit: int | None = None,
    override: int | None = None,
) -> Expectation | None:
    """The number of unique (task, rollout) records a finished run must hold."""
    if override is not None:
        return Expectation(override, "--expected")
    if limit is not None:
        rows = limit if variant_rows is None else min(limit, variant_rows)
        source = f"canary ++limit={limit}"
    elif variant_rows is not None:
        rows = variant_rows
        source = f"{variant_name}: {variant_rows} rows"
    else:
        return None
    if repeats != 1:
        source += f" x {repeats} repeats"
    return Expectation(rows * repeats, source)
