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

    def counts(self) -> Counter:
        """Items by outcome value, e.g. {"scored": 190, "truncated": 8}."""
        return Counter(item.outcome.value for item in self.items)

    @property
    def failed(self) -> int:
        return sum(1 for item in self.items if item.outcome.is_failure)

    @property
    def failed_share(self) -> float:
        return self.failed / len(self.items) if self.items else 0.0

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
        }


__all__ = ["GradingConflict", "ItemResult", "Outcome", "RunFailure", "TaskOutcomes"]
