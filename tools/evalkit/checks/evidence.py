"""What the run checks read, gathered once per task: by validate from a finished run, by
status from what a growing run has written so far. The rules only read this."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.checks.model import Expectation
from evalkit.runs.logscan import LogScan
from evalkit.runs.results import Score

# Share checks (prefix-gate, output-limit) on a growing run wait for this many rollouts
# (or the whole canary if smaller): with the golden run's 0.55 prefix share, 20 rollouts
# fall under the 0.25 bar with p < 0.002.
MIN_SAMPLE = 20


@dataclass(frozen=True)
class RolloutFacts:
    """The rollouts file as counted by one pass (validate) or a running tally (status)."""

    unique: int  # unique (task, rollout) records
    records: int  # every record read, duplicates included
    duplicates: int
    conflicting: int
    incomplete: int  # records with incomplete_details (capped at the output limit)
    prefix_share: float | None  # mean prefix_matched; None with nothing to measure
    truncated_last_line: bool = False
    blank_lines: int = 0
    pass_at_1: float | None = None  # the recomputed aggregate (finished runs)
    strata: dict[str, float] = field(default_factory=dict)
    agent: str | None = None
    reasoning_leaks: int | None = None  # records whose answer carries <think> markup


@dataclass(frozen=True)
class Evidence:
    mrcr: bool
    is_gym: bool
    growing: bool  # status on a run still being written; validate: False
    finished: bool  # the harness wrote its end files (results.yml or the aggregate)
    client: list[LogScan]
    server: list[LogScan]
    other_logs: list[LogScan]
    rollouts: RolloutFacts | None = None  # None: no rollouts file (or not a Gym task)
    expectation: Expectation | None = None
    response_stats: tuple[int, int] | None = None  # (length-capped, count) from the metrics
    aggregate_path: Path | None = None  # the aggregate file, when present
    results_present: bool = False
    scores: list[Score] | None = None  # None: results.yml absent
    gym_pin: str = ""
    gym_pin_source: str = ""
    gym_version: str | None = None
    banner_pending: bool = False  # status: the last client line is the commit banner
    quiet: bool = False  # status: nothing written lately, walltime over, or chain ended
    outcomes: Any = None  # runs.outcomes.TaskOutcomes: a harness's items (not MRCR)
    headline: dict | None = None  # the adapter's headline (value, metric, scale)
    item_scale: str | None = None  # the adapter's declared range of one item's score

    @property
    def logs(self) -> list[LogScan]:
        return self.client + self.server + self.other_logs

    def sample_needed(self) -> int:
        """Rollouts a growing run must hold before the share checks judge it."""
        expected = self.expectation.count if self.expectation else None
        return min(MIN_SAMPLE, expected) if expected else MIN_SAMPLE

    def sample_ready(self) -> bool:
        records = self.rollouts.records if self.rollouts else 0
        if not self.growing:
            return True
        return records >= self.sample_needed() or (self.finished and records > 0)
