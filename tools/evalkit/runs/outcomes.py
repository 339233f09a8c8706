"""What happened to each item of a task: scored as an answer, or failed for a reason that
is not the model's answer (issue "a failure is not a zero").

A harness reader (one module per harness under benchmarks/) turns its per-item files into
`ItemResult`s and the run-level failures into `RunFailure`s; `TaskOutcomes` holds them and
counts by cause. The run model knows no harness: this module is the shape they all fill,
so score, validate, compare, status and the report read one thing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum


class Outcome(str, Enum):
    """One item's fate. Only SCORED is the model's answer; every other value is a failure
    that a harness scores as a wrong answer (0) unless it is accounted for."""

    SCORED = "scored"  # the harness extracted an answer and scored it
    REASONING_ONLY = "reasoning_only"  # empty content, the answer is in reasoning_content
    TRUNCATED = "truncated"  # finish_reason "length": cut at the output limit
    UNPARSED = "unparsed"  # a finished answer the harness could not extract
    JUDGE_ERROR = "judge_error"  # the judge call failed and was scored as "no"
    ENDPOINT_ERROR = "endpoint_error"  # the request failed (status code, context length)
    MISSING = "missing"  # expected but never written (the run stopped early)

    @property
    def is_failure(self) -> bool:
        return self is not Outcome.SCORED


# The two kinds of failure, each with its own denominator (never added together): a fault
# in what the model returned, over the responses that came back; a fault of the run
# around the model, over every trial the run was to make.
RESPONSE_FAULTS = frozenset({Outcome.REASONING_ONLY, Outcome.TRUNCATED, Outcome.UNPARSED})
RUNTIME_FAULTS = frozenset({Outcome.JUDGE_ERROR, Outcome.ENDPOINT_ERROR, Outcome.MISSING})
NO_RESPONSE = frozenset({Outcome.ENDPOINT_ERROR, Outcome.MISSING})


@dataclass(frozen=True)
class ItemResult:
    """One item of one repeat, as the harness scored it.

    `item_id` is the harness's own id for the item (lm-eval's doc_id, simple-evals' index
    in the un-repeated list, HLE's question id); `prompt_digest` is a sha256 hex digest of
    the prompt text, so two runs pair only when both agree. `score` is what the harness
    counted (None when it counted nothing); `finish_reason` comes from the adapter's
    response cache when the join found the response.
    """

    item_id: str
    prompt_digest: str | None
    repeat: int
    score: float | None
    outcome: Outcome
    finish_reason: str | None = None
    detail: str | None = None  # a short, already-redacted reason ("no 'Answer:' line")
    reply: bytes | None = None  # digest of a non-trivial reply text (reuse check), else None

    @property
    def pair_key(self) -> tuple[str, str | None]:
        return (self.item_id, self.prompt_digest)


@dataclass(frozen=True)
class RunFailure:
    """A failure of the whole run, read from its logs or its missing files."""

    outcome: Outcome
    evidence: str  # the file (and line) it was read from, and the quoted line, redacted
    count: int = 1


@dataclass(frozen=True)
class GradingConflict:
    """An item whose score the harness's own record of its grading does not back: the
    record says another score, or no reply stands behind the score."""

    item_id: str
    repeat: int
    reason: str  # short: what the row says against what its record says


@dataclass
class TaskOutcomes:
    """Every item of a task accounted for: the harness, its items and run-level failures."""

    harness: str  # "simple_evals", "lm_eval", "hle", "gym"
    items: list[ItemResult] = field(default_factory=list)
    run_failures: list[RunFailure] = field(default_factory=list)
    source: str | None = None  # the per-item file read (relative to the task directory)
    notes: list[str] = field(default_factory=list)  # limits of what could be told per item
    # Items whose grading record was compared with their score (None: the harness keeps
    # no such record per item), and the ones that disagree.
    graded: int | None = None
    conflicts: list[GradingConflict] = field(default_factory=list)
    # Trials the run was to make (items x repeats), as its config declares; None when the
    # harness's files do not say, which leaves the runtime rate unverified.
    expected: int | None = None

    def counts(self) -> Counter:
        """Items by outcome value, e.g. {"scored": 190, "truncated": 8}."""
        return Counter(item.outcome.value for item in self.items)

    @property
    def failed(self) -> int:
        return sum(1 for item in self.items if item.outcome.is_failure)

    @property
    def failed_share(self) -> float:
        return self.failed / len(self.items) if self.items else 0.0

    def rates(self) -> dict[str, dict]:
        """Response faults over unique successful responses, runtime faults over expected
        trials. Each numerator is a union over (item, repeat): an item read twice (a
        resumed run's two attempts) counts once. A rate is None (`unverified`) when its
        denominator is unknown or 0, never 0 %."""
        by_key: dict[tuple[str, int], set[Outcome]] = {}
        for item in self.items:
            by_key.setdefault((item.item_id, item.repeat), set()).add(item.outcome)
        responded = sum(1 for seen in by_key.values() if seen - NO_RESPONSE)
        response = sum(1 for seen in by_key.values() if seen & RESPONSE_FAULTS)
        runtime = sum(1 for seen in by_key.values() if seen & RUNTIME_FAULTS)
        unparsed = sum(1 for seen in by_key.values() if Outcome.UNPARSED in seen)
        unwritten = sum(1 for seen in by_key.values() if seen == {Outcome.MISSING})
        return {
            "response": {**_rate(response, responded or None), "unparsed": unparsed},
            "runtime": {**_rate(runtime, self.expected or None), "missing": unwritten},
        }

    def as_dict(self) -> dict:
        """Counts: scored (an answer), unparsed (the model's own answer, not extracted:
        apart from the failures), failed (every other cause)."""
        counts = self.counts()
        unparsed = counts.get(Outcome.UNPARSED.value, 0)
        return {
            "harness": self.harness,
            "source": self.source,
            "items": len(self.items),
            "scored": counts.get(Outcome.SCORED.value, 0),
            "unparsed": unparsed,
            "failed": self.failed - unparsed,
            "by_outcome": dict(sorted(self.counts().items())),
            "run_failures": [
                {"outcome": f.outcome.value, "evidence": f.evidence, "count": f.count}
                for f in self.run_failures
            ],
            "notes": list(self.notes),
            "expected": self.expected,
            "rates": self.rates(),
        }


def _rate(faults: int, of: int | None) -> dict:
    rate = faults / of if of else None
    return {"faults": faults, "of": of, "rate": rate, "verified": rate is not None}


__all__ = [
    "NO_RESPONSE",
    "RESPONSE_FAULTS",
    "RUNTIME_FAULTS",
    "GradingConflict",
    "ItemResult",
    "Outcome",
    "RunFailure",
    "TaskOutcomes",
]
