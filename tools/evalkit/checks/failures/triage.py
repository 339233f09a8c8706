"""The cause of a task that ended without a valid result, or the early signs on one
still running: the rules' hits, the one that explains the end (the lowest rank), the
fix, whether the same config can succeed, the attempt budget and the next step.

A finished task gets no cause; a running or starting one only the rules that show on a
live run (and the early warnings of failures/early.py); a slow healthy run matches no
rule, so it is never called failed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evalkit.checks.failures.budget import Attempts, attempts
from evalkit.checks.failures.facts import task_facts
from evalkit.checks.failures.model import (
    ENDED,
    LIVE,
    RELAUNCH,
    RESUME,
    Change,
    FailureRule,
    Hit,
    TaskFacts,
)
from evalkit.checks.failures.rules import BY_ID, RULES
from evalkit.checks.failures.scan import LogFacts, LogScanner, job_of, scan_logs
from evalkit.runs.invocation import INVOCATION_PLACEHOLDER, JOB_PLACEHOLDER, id_hint
from evalkit.runs.layout import TaskRun

FINISHED_STATES = ("finished",)
LIVE_STATES = ("starting", "running")


@dataclass
class Cause:
    rule: FailureRule
    hit: Hit
    count: int
    sentence: str
    changes: list[Change]
    stage: str  # ENDED | LIVE

    @property
    def recognised(self) -> bool:
        from evalkit.checks.failures.unknown import ID

        return self.rule.id != ID

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.rule.id,
            "recognised": self.recognised,
            "component": self.hit.groups.get("component") if not self.recognised else None,
            "transient": self.rule.transient,
            "cause": self.sentence,
            "stage": self.stage,
            "evidence": {
                "file": f"{self.hit.where}{self.hit.file}",
                "line": self.hit.line,
                "text": self.hit.text,
            },
            "matches": self.count,
            # not recognised: nobody knows whether the same config can succeed
            "resubmit_can_succeed": self.rule.resubmit if self.recognised else None,
            "fix": [c.to_json() for c in self.changes],
            "source": self.rule.source.text(),
        }


@dataclass
class TaskTriage:
    task: str
    path: str
    state: str
    facts: TaskFacts
    cause: Cause | None = None
    also: list[Cause] = field(default_factory=list)  # other signatures seen, lower down
    warnings: list[Cause] = field(default_factory=list)  # early, on a live run
    attempts: Attempts = field(default_factory=Attempts)
    verdict: str = ""  # one sentence: resubmit or not
    next: list[str] = field(default_factory=list)  # the exact next command(s)
    slurm: list[str] = field(default_factory=list)  # what sacct/squeue said, and disagreements

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "state": self.state,
            "cause": self.cause.to_json() if self.cause else None,
            "also_seen": [c.to_json() for c in self.also],
            "warnings": [c.to_json() for c in self.warnings],
            "attempts": self.attempts.to_json(),
            "verdict": self.verdict,
            "next": self.next,
            "slurm": self.slurm,
        }


def settle(logs: LogFacts, facts: TaskFacts) -> None:
    """Drop the hits whose rule's condition does not hold for this run."""
    for rule_id in list(logs.hits):
        rule = BY_ID[rule_id]
        bucket = logs.hits[rule_id]
        bucket.hits = [h for h in bucket.hits if rule.applies(h, facts)]
        bucket.by_job = {j: h for j, h in bucket.by_job.items() if rule.applies(h, facts)}
        if not bucket.hits and not bucket.by_job:
            del logs.hits[rule_id]


def _causes(logs: LogFacts, facts: TaskFacts, stage: str) -> list[Cause]:
    found = []
    for rule in sorted(RULES, key=lambda r: r.rank):
        bucket = logs.hits.get(rule.id)
        if not bucket or (rule.early_only and stage == ENDED):
            continue
        # The latest job's hit explains the end; the bucket's first hit otherwise.
        hit = bucket.by_job[max(bucket.by_job, key=int)] if bucket.by_job else bucket.hits[0]
        found.append(
            Cause(rule, hit, bucket.count, rule.cause(hit, facts), rule.fix(hit, facts), stage)
        )
    return found


def _current(causes: list[Cause], logs: LogFacts, tries: Attempts) -> list[Cause]:
    """The job that ended last decides: its causes first (by rank), then the earlier
    jobs' as history. A latest job with no log of its own leaves the order as it was."""
    latest = tries.jobs[-1] if tries.jobs else None
    if latest is None or not any(job_of(n) == latest for n in logs.files):
        return causes
    now = [c for c in causes if c.hit.job in (None, latest)]
    return now + [c for c in causes if c not in now]


def _unknown(t: TaskTriage, logs: LogFacts) -> None:
    """No signature names the end of the latest job, or only run.sub's catch-all that
    the server died: say so, and quote the fatal line of what died first."""
    from evalkit.checks.failures.unknown import RULE as UNKNOWN
    from evalkit.checks.failures.unknown import fatal_hit

    latest = t.attempts.jobs[-1] if t.attempts.jobs else None
    named = t.cause is not None and t.cause.rule.id != "server-died"
    if named and (latest is None or t.cause.hit.job in (None, latest)):  # type: ignore[union-attr]
        return
    hit = fatal_hit(logs, latest)
    if hit is None:
        return
    if t.cause is not None:
        t.also.insert(0, t.cause)
    t.cause = Cause(UNKNOWN, hit, 1, UNKNOWN.cause(hit, t.facts), [], ENDED)


def _ended_by(causes: Sequence[Cause], tries: Attempts) -> bool:
    """A line printed as the job ends, in the latest job's logs (or in logs of no job)."""
    latest = tries.jobs[-1] if tries.jobs else None
    return any(c.rule.ends_job and c.hit.job in (None, latest) for c in causes)


def warn_early(t: TaskTriage) -> None:
    """A live task whose signature will end it: stop the job now, make the change, then
    relaunch (nel 0.2.6 `nel kill ID` takes `<invocation>.<n>` for task `<name>.<n>`)."""
    if not t.warnings:
        return
    first = t.warnings[0]
    if first.rule.early_only and not first.changes:  # late, but no projection says it fails
        t.verdict = (
            "watch it: the health wait runs out soon; if it gives up, raise "
            "execution.endpoint_readiness_timeout before relaunching"
        )
        return
    # plain-word placeholders: pasted unfilled they fail as an unknown id, never redirect
    inv = t.facts.invocation_id or INVOCATION_PLACEHOLDER
    job = f"{inv}.{t.facts.job_index}" if t.facts.job_index else JOB_PLACEHOLDER
    t.verdict = "stop it now: it will not succeed as configured; make the change first"
    t.next = [f"nel kill {job}   (on the machine that ran `nel run`; cancels the Slurm job)"]
    if hint := id_hint(job):
        t.next.append(f"({hint})")
    for n, change in enumerate(first.changes):
        if n == 0 or change.joint:
            t.next.append(f"change in {config_name(t.facts)}: {change.key}: {change.value}")
    t.next.append(relaunch_command(t.facts))


def _resume(facts: TaskFacts) -> str:
    inv = facts.invocation_id or INVOCATION_PLACEHOLDER
    # nel 0.2.6 resumes whole invocations only (cli/resume.py): say so, and how one job goes
    return (
        f"nel resume {inv}   (resubmits every job of the invocation; this job alone: "
        "rm -f .slurm_job_id.list .accumulated_walltime && sbatch run.sub in its task directory)"
    )


def config_name(facts: TaskFacts) -> str:
    """The config that launched the run (run.sub's launcher_command), else CONFIG."""
    from evalkit.shellword import shell_word

    return shell_word(facts.config_path) if facts.config_path else "CONFIG"


def relaunch_command(facts: TaskFacts) -> str:
    """The launch command, run after the change is written into the config (an `-o`
    override would leave the file wrong for the next launch, and Hydra reads a value such
    as 11:00:00 by its own grammar)."""
    launcher = "scripts/nel-gym.sh run" if facts.gym else "nel run"
    return f"{launcher} --config {config_name(facts)}"


def decide(t: TaskTriage) -> None:
    """The verdict and the next command(s) for the cause named."""
    cause = t.cause
    if cause is None:
        return
    rule = cause.rule
    if not cause.recognised:
        t.verdict = (
            "cause not recognised: read the quoted fatal line before resubmitting; nothing "
            "here says whether the same config can succeed"
        )
        return
    if (
        t.attempts.exhausted
        and t.attempts.streak_cause == rule.id
        and rule.next != RESUME
        and not rule.transient
    ):
        t.verdict = (
            f"do not resubmit: the last {t.attempts.streak} attempts ended the same way with "
            "the same run.sub; make the change first"
        )
    elif not rule.resubmit:
        t.verdict = "do not resubmit the same config: it fails the same way; make the change first"
    else:
        t.verdict = "the same config can succeed: nothing in it caused this"
    if rule.chain_continues:
        # Never by name: nel 0.2.6 names jobs <account>-<subproject>.<task dir>, without
        # the invocation id, so a name cancels other invocations' jobs too.
        dead = cause.hit.job or (t.attempts.jobs[-1] if t.attempts.jobs else "JOB_ID")
        t.next.append(
            f"scancel FOLLOW_UP_JOB_ID   (the job run.sub queued with --dependency=afternotok:"
            f"{dead}; `squeue --me -h -o '%i %E'` lists it; it would start the same way)"
        )
    if rule.next == RESUME:
        t.next = [_resume(t.facts)]
    elif rule.next == RELAUNCH:
        for n, change in enumerate(cause.changes):
            if n == 0 or change.joint:
                t.next.append(f"change in {config_name(t.facts)}: {change.key}: {change.value}")
        t.next.append(relaunch_command(t.facts))
    # NONE: nothing to run (t.next holds only what the chain above still needs)


def triage_task(
    task: TaskRun,
    state: str,
    done: int | None = None,
    expected: int | None = None,
    now: float | None = None,
    scanner: LogScanner | None = None,
    sizing: Any = None,
) -> TaskTriage:
    """SCANNER, when given, follows the logs across calls (status --watch); without it
    the logs are read whole."""
    import copy
    import time

    from evalkit.runs.jobtimes import job_start

    logs_dir = task.task_dir / "logs"  # as status reads them (status/monitor.py)
    logs_dir = logs_dir if logs_dir.is_dir() else task.logs_dir
    if scanner is None:
        logs = scan_logs(logs_dir, RULES)
    else:  # settle() filters the hits: work on a copy, the scanner keeps counting
        logs = copy.deepcopy(scanner.refresh(logs_dir))
    facts = task_facts(task, logs)
    facts.done, facts.expected = done, expected
    facts.sizing = sizing
    start, _ = job_start(task.task_dir)
    if state in LIVE_STATES and start is not None:
        facts.live_seconds = max(0, int((time.time() if now is None else now) - start))
    settle(logs, facts)
    t = TaskTriage(task=task.name, path=str(task.task_dir), state=state, facts=facts)
    t.attempts = attempts(facts, logs, BY_ID)
    if state in FINISHED_STATES:
        return t
    causes = _causes(logs, facts, ENDED)
    if state in LIVE_STATES and not _ended_by(causes, t.attempts):
        t.warnings = [c for c in _causes(logs, facts, LIVE) if c.rule.live]
        warn_early(t)
        return t
    causes = _current(causes, logs, t.attempts)
    if causes:
        t.cause, t.also = causes[0], causes[1:]
    if state not in FINISHED_STATES:
        _unknown(t, logs)
    decide(t)
    return t


__all__ = ["Cause", "TaskTriage", "relaunch_command", "triage_task", "RELAUNCH", "RESUME"]
