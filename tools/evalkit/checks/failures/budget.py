"""The attempt budget of one task: how many Slurm jobs it has had (run.sub appends each
job id to `.slurm_job_id.list`; each job writes its own `slurm-<id>.log`), what ended
each one, and whether the last ones failed the same way. A task directory keeps one
run.sub for every job (`nel resume` and the auto-resume chain reuse it), so jobs of one
task directory always ran the same config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.checks.failures.model import FailureRule, TaskFacts
from evalkit.checks.failures.scan import LogFacts, job_of

REPEAT_LIMIT = 2  # the same cause this many times in a row: stop resubmitting unchanged


@dataclass
class Attempts:
    jobs: list[str] = field(default_factory=list)
    causes: dict[str, str] = field(default_factory=dict)  # job id -> rule id
    streak: int = 0  # trailing jobs ended by the same cause
    streak_cause: str | None = None

    @property
    def count(self) -> int:
        return len(self.jobs)

    @property
    def exhausted(self) -> bool:
        return self.streak >= REPEAT_LIMIT

    def to_json(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "count": self.count,
            "causes": self.causes,
            "repeated": self.streak,
            "repeated_cause": self.streak_cause,
        }


def attempts(facts: TaskFacts, logs: LogFacts, rules: dict[str, FailureRule]) -> Attempts:
    jobs = set(facts.jobs)
    jobs.update(j for j in (job_of(n) for n in logs.files if n.startswith("slurm-")) if j)
    ordered = sorted(jobs, key=int)
    found = Attempts(jobs=ordered)
    for rule_id, bucket in logs.hits.items():
        rule = rules[rule_id]
        for job in bucket.by_job:
            best = found.causes.get(job)
            if best is None or rules[best].rank > rule.rank:
                found.causes[job] = rule_id
    last = None
    for job in reversed(ordered):
        cause = found.causes.get(job)
        if cause is None or (last is not None and cause != last):
            break
        last = cause
        found.streak += 1
    found.streak_cause = last
    return found
