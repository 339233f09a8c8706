"""A failure signature as data: which log lines name a cause, where the message comes
from, whether the same config can succeed again, the fix and the next step.

A rule is one module under failures/rules/; its docstring is What it does / Why / Fix
(references/failures.md is generated from it). `FailureRule.fix` turns the matched line
and what the run says about itself (`TaskFacts`) into a config change, computed where the
line or the run gives the numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# What to do next, for the closing command.
RESUME, RELAUNCH, NONE = "resume", "relaunch", "none"
# A rule's pattern is tried only this far either side of the first needle in a line:
# every message a rule reads fits in it, and a line that repeats a needle (hostile, or a
# log gone wrong) then costs one bounded search, not one per repetition.
MATCH_WINDOW = 16 * 1024
# Where a cause stands in the run's life: a dead run's cause, or a live run's warning.
ENDED, LIVE = "ended", "live"


@dataclass(frozen=True)
class Source:
    """Where the message a rule matches is printed (package, version, file and line, or
    repository and path); `guess` when the string could not be read from its source."""

    package: str
    version: str
    file: str
    line: int | None = None
    guess: bool = False

    def text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        mark = " (a guess: not read from the source)" if self.guess else ""
        return f"{self.package} {self.version}, {where}{mark}"


@dataclass(frozen=True)
class Change:
    """One config change: the key, the value and why that value."""

    key: str
    value: str
    why: str = ""
    joint: bool = False  # made together with the change before it, not instead of it

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "why": self.why, "with_previous": self.joint}


@dataclass(frozen=True)
class Hit:
    """A matched line: the file it is in, its line number, the line redacted."""

    rule: str
    file: str
    line: int
    text: str
    groups: dict[str, str] = field(default_factory=dict)
    job: str | None = None  # the Slurm job id the log belongs to (slurm-<id>.log ...)
    where: str = "logs/"  # the folder FILE is in, relative to the task ("" for a given file)


@dataclass
class TaskFacts:
    """What the run says about itself, for computing fixes (all optional)."""

    invocation_id: str | None = None
    job_index: str | None = None  # <task>.<n>: job <invocation>.<n>
    gym: bool = False
    served_model_name: str | None = None  # vLLM --served-model-name
    vllm_args: dict[str, str] = field(default_factory=dict)  # --flag -> value
    walltime_seconds: int | None = None
    max_walltime: str | None = None
    readiness_timeout: int | None = None  # TIMEOUT= of run.sub's health wait
    nodes: int = 1
    gpus_per_node: int | None = None
    accumulated_seconds: int | None = None  # .accumulated_walltime
    jobs: list[str] = field(default_factory=list)  # .slurm_job_id.list
    followups: set[str] = field(default_factory=set)  # jobs run.sub queued (sbatch's answer)
    done: int | None = None
    expected: int | None = None
    shards: tuple[int, int] | None = None  # last "Loading ... shards" n/total seen
    registered_parsers: list[str] = field(default_factory=list)
    waiting_jobs: set[str] = field(
        default_factory=set
    )  # jobs whose slurm log began the health wait
    ready_jobs: set[str] = field(default_factory=set)  # ... and logged "server ready on"
    loaded_files: set[str] = field(default_factory=set)  # server logs past the weight load
    prepare_lines: dict[str, int] = field(default_factory=dict)  # log -> Gym prepare line
    rollouts_written: bool = False
    ok_requests: int = 0  # log lines showing an answered (200) request
    live_seconds: int | None = None  # a live task: seconds since its job started
    job_name: str | None = None  # run.sub's #SBATCH --job-name
    config_path: str | None = None  # the --config of the `nel run` that launched it
    # `status --checkpoint DIR --gpu-mem-gib G` (commands/status.py): sizing(tp, max_len,
    # gpus_per_node, kv_dtype, gpu_util) -> the KV GiB a GPU keeps when one request of
    # max_len fits at that TP, else None; evalkit's sizing model, handed in from above
    sizing: Callable[[int, int, int, str, float], float | None] | None = None


@dataclass(frozen=True)
class FailureRule:
    id: str
    name: str  # a few words
    doc: str  # What it does / Why is this bad / Fix
    source: Source
    needle: str | tuple[str, ...]  # literal(s): a matching line holds one (a cheap pre-filter)
    pattern: re.Pattern[str]
    logs: tuple[str, ...]  # log name prefixes it reads ("slurm-", "server-", "client-")
    resubmit: bool  # can the same config succeed if submitted again?
    next: str  # RESUME | RELAUNCH | NONE
    fix: Callable[[Hit, TaskFacts], list[Change]]  # alternatives, the preferred first
    cause: Callable[[Hit, TaskFacts], str]  # one sentence naming the cause
    live: bool = False  # shows on a run still alive (status warns early)
    rank: int = 50  # lower wins when several rules match one run (the root cause first)
    applies: Callable[[Hit, TaskFacts], bool] = lambda hit, facts: True  # a hit's condition
    # The line is printed as the job ends (run.sub's exits, pyxis, slurmstepd): the task
    # has ended whatever its files' times say (a copied or synced folder has fresh ones).
    ends_job: bool = False
    early_only: bool = False  # a forecast for a live task; never the cause of an ended one
    # run.sub's chain resumes this end (a TIMEOUT): its queued follow-up job would fail
    # the same way, so the answer cancels it before the change.
    chain_continues: bool = False
    # Other wordings of the same message (other versions), tried after PATTERN.
    wordings: tuple[re.Pattern[str], ...] = ()
    # Retrying can succeed by itself (a rate limit, a node, an interconnect): never
    # "do not resubmit", whatever the attempt budget says.
    transient: bool = False
    # Where the other wordings come from (versions, and the public logs they were read in).
    covers: tuple[Source, ...] = ()

    @property
    def needles(self) -> tuple[str, ...]:
        return (self.needle,) if isinstance(self.needle, str) else self.needle

    def match(self, line: str) -> re.Match[str] | None:
        at = [i for i in (line.find(n) for n in self.needles) if i >= 0]
        if not at:
            return None
        first = min(at)
        start, end = max(0, first - MATCH_WINDOW), min(len(line), first + MATCH_WINDOW)
        for pattern in (self.pattern, *self.wordings):
            found = pattern.search(line, start, end)
            if found:
                return found
        return None

    @property
    def summary(self) -> str:
        return " ".join(self.doc.strip().split("\n\n", 1)[0].split())

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "source": self.source.text()}
