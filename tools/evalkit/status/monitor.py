"""A run that is still being written: its state, progress, time left and early warnings.

A `TaskMonitor` follows one task directory: each `refresh(now)` reads only what was
appended and runs validate's own rules (`checks.runner`) on the tallies; it writes nothing.

Where the times come from (nel 0.2.6 `run.sub`, `executors/slurm/executor.py`):
- the walltime is the `#SBATCH --time` line of `run.sub`;
- the job start is the epoch second that `run.sub` writes to `.job_start_time` when each
  job of the auto-resume chain starts (a start line, not a guess from a log's mtime,
  which moves with every write); without that file, the mtime of `.slurm_job_id.list`,
  which `run.sub` appends the new job id to at the same moment.
- at each job's start `run.sub` queues its own follow-up (`sbatch
  --dependency=afternotok`), so a job killed by its walltime is followed by one that
  resumes. Until it starts, the task is stopped but awaiting that resume, and `--watch`
  keeps watching. The follow-up ends the chain instead, saying so at the top of its
  `slurm-<job>.log`, when the chain's total walltime is spent (before it writes a start
  file) or when the previous job ended in a state it does not resume, a cancel or a
  failure (after it rewrites `.job_start_time`: the task looks freshly started). So the
  chain end is read whenever a task is unfinished, not only once its walltime is over.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.checks.evidence import Evidence, RolloutFacts
from evalkit.checks.model import PASS, Check, Expectation
from evalkit.checks.rule import RESUME, STOP, WATCH, status_action
from evalkit.checks.runner import run_rules
from evalkit.checks.validate import expectation_for, gym_pin_of, length_from_metrics, log_files
from evalkit.runs.invocation import invocation_id
from evalkit.runs.jobtimes import (
    chain_end,
    job_start,
    jobs_in_chain,
    progress_count,
    read_run_sub,
    walltime_from_run_sub,
)
from evalkit.runs.layout import TaskRun, names_one_task, resolve_task_runs
from evalkit.runs.logscan import LogScan
from evalkit.runs.settings import read_run_settings
from evalkit.runs.tail import Tail
from evalkit.status.cancel import kill_words, resume_words
from evalkit.status.follow import LogFollower, RolloutTally
from evalkit.status.outcomes import OutcomeCache

STARTING, RUNNING, FINISHED, FAILED = "starting", "running", "finished", "failed"
STOPPED = "stopped_unfinished"
ENDED = (FINISHED, FAILED, STOPPED)

# What a warning asks for (STOP, WATCH, RESUME: checks.rule.STATUS_ACTION for a rule's
# result). Only STOP makes `evalkit status` exit 1.
RATE_WINDOW = 600.0  # seconds of refresh history behind "the recent rate"
STALE_AFTER = 1200.0  # no file in the task changed for this long: the job is not running


@dataclass(frozen=True)
class EarlyWarning:
    id: str
    message: str
    action: str  # a sentence: what to do now
    kind: str  # STOP | WATCH | RESUME

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "message": self.message, "action": self.action}


@dataclass
class TaskStatus:
    task: str
    benchmark: str  # mrcr | generic
    state: str
    done: int | None
    expected: int | None
    expected_source: str | None
    partial_line: bool  # a rollout is being written right now
    rate_per_hour: float | None
    rate_source: str | None
    eta_seconds: float | None
    walltime_seconds: int | None
    walltime_left_seconds: float | None
    job_start_source: str | None
    will_finish: bool | None
    awaiting_resume: bool = False  # stopped by its walltime; the queued follow-up resumes it
    warnings: list[EarlyWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    path: str = ""  # the task directory, for the commands we suggest
    checked: list[str] = field(default_factory=list)  # rule ids judged at this refresh
    invocation_id: str | None = None  # runs.invocation: run.sub, then the directory name
    whole_invocation: bool = False  # the path examined named the invocation, not one task
    outcomes: dict[str, Any] | None = None  # an ended task's items by outcome

    @property
    def stop(self) -> bool:
        return self.state == FAILED or any(w.kind == STOP for w in self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "benchmark": self.benchmark,
            "state": self.state,
            "done": self.done,
            "expected": self.expected,
            "expected_source": self.expected_source,
            "rate_per_hour": self.rate_per_hour,
            "eta_seconds": self.eta_seconds,
            "walltime_seconds": self.walltime_seconds,
            "walltime_left_seconds": self.walltime_left_seconds,
            "job_start_source": self.job_start_source,
            "will_finish": self.will_finish,
            "awaiting_resume": self.awaiting_resume,
            "warnings": [w.to_json() for w in self.warnings],
            "notes": self.notes,
            "checked": self.checked,
            "outcomes": self.outcomes,
        }


# ------------------------------------------------------------------------ rollout tally


def duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    if hours >= 1:
        return f"{hours}h{rest // 60:02d}m"
    return f"{rest // 60}m{rest % 60:02d}s"


# ------------------------------------------------------------------------ the monitor


class TaskMonitor:
    def __init__(
        self,
        task: TaskRun,
        expected_override: int | None = None,
        stale_after: float = STALE_AFTER,
    ) -> None:
        self.task = task
        self.expected_override = expected_override
        self.stale_after = stale_after
        self.rollouts = Tail(task.rollouts_path)
        self.tally = RolloutTally()
        self.logs: dict[Path, LogFollower] = {}
        self.history: deque[tuple[float, int]] = deque()

    # -- reading

    def _log_dir(self) -> Path | None:
        logs = self.task.task_dir / "logs"
        return logs if logs.is_dir() else self.task.logs_dir

    def _follow_logs(self) -> None:
        logs_dir = self._log_dir()
        for path in log_files(logs_dir, ""):
            follower = self.logs.get(path)
            if follower is None:
                follower = self.logs[path] = LogFollower(path)
            follower.refresh()

    def _scans(self, prefix: str | None) -> list[LogScan]:
        out: list[LogScan] = []
        for path, follower in sorted(self.logs.items()):
            if prefix is None or path.name.startswith(prefix):
                out.extend(follower.scans)
        return out

    def _read_rollouts(self) -> None:
        new = self.rollouts.lines()
        if self.rollouts.restarted:  # the file was cleared or replaced: count afresh
            self.tally = RolloutTally()
        for line_no, raw in new:
            self.tally.add(line_no, raw, self.rollouts.path)

    def _last_activity(self) -> float | None:
        times = []
        for path in [self.task.rollouts_path, *self.logs]:
            try:
                times.append(path.stat().st_mtime)
            except OSError:
                continue
        return max(times) if times else None

    # -- the status

    def refresh(self, now: float) -> TaskStatus:
        from evalkit.benchmarks import is_mrcr

        settings = read_run_settings(self.task)
        mrcr = is_mrcr(self.task)
        self._follow_logs()
        notes: list[str] = []

        if mrcr:
            self._read_rollouts()
            done: int | None = self.tally.unique
            expectation = expectation_for(self.tally.agent, settings, self.expected_override)
            finished = self.task.aggregate_path.is_file()
        else:
            done = progress_count(self.task)
            override = self.expected_override
            expectation = Expectation(override, "--expected") if override else None
            finished = self.task.results_path.is_file()
        expected = expectation.count if expectation else None

        # -- times
        run_sub = self.task.task_dir / "run.sub"
        walltime = walltime_from_run_sub(read_run_sub(run_sub)) if run_sub.is_file() else None
        start, start_source = job_start(self.task.task_dir)
        left = None if walltime is None or start is None else start + walltime - now
        activity = self._last_activity()
        stale = activity is not None and now - activity > self.stale_after
        out_of_time = left is not None and left <= 0
        ended_by = None if finished else chain_end(self._log_dir(), start)

        # -- warnings: validate's rules on what is written so far
        quiet = stale or out_of_time or ended_by is not None
        ev = self._evidence(settings, mrcr, finished, expectation, quiet)
        checks = run_rules(ev)
        if mrcr and not ev.sample_ready():
            notes.append(
                f"prefix-gate and output-limit wait for {ev.sample_needed()} rollouts "
                f"({self.tally.records} so far)"
            )
        warnings = [_warning(c, self.task) for c in checks if c.status != PASS]

        # -- state
        fatal = any(w.kind == STOP for w in warnings) or any(
            c.id == "log-errors" and c.status != PASS for c in checks
        )
        if finished:
            state = FINISHED
        elif ended_by or ((stale or out_of_time) and (self.logs or done)):
            state = FAILED if fatal else STOPPED
        elif not done:
            state = STARTING
        else:
            state = RUNNING

        # -- rate, ETA, walltime verdict
        self.history.append((now, done or 0))
        while len(self.history) > 2 and now - self.history[1][0] > RATE_WINDOW:
            self.history.popleft()
        rate, rate_source = self._rate(now, done, start)
        eta = None
        if state == FINISHED:
            eta = 0.0
        elif expected is not None and done is not None and rate:
            eta = max(0, expected - done) / rate * 3600.0
        will_finish = None
        if state in (STARTING, RUNNING) and eta is not None and left is not None:
            will_finish = eta <= left
            if not will_finish:
                warnings.append(_walltime_warning(eta, left, self.task))
        awaiting_resume = False
        if state == STOPPED:
            awaiting_resume = out_of_time and ended_by is None
            warnings.append(_stopped_warning(self.task, out_of_time, ended_by))
        if state == FINISHED:  # nothing left to let run
            warnings = [_after_the_end(w) for w in warnings]
        if state in (STARTING, RUNNING) and self.rollouts.partial_bytes:
            notes.append("a rollout is being written (partial last line)")

        return TaskStatus(
            task=self.task.name,
            benchmark="mrcr" if mrcr else "generic",
            state=state,
            done=done,
            expected=expected,
            expected_source=expectation.source if expectation else None,
            partial_line=bool(self.rollouts.partial_bytes),
            rate_per_hour=rate,
            rate_source=rate_source,
            eta_seconds=eta,
            walltime_seconds=walltime,
            walltime_left_seconds=None if left is None else max(0.0, left),
            job_start_source=start_source,
            will_finish=will_finish,
            awaiting_resume=awaiting_resume,
            warnings=warnings,
            notes=notes,
            path=str(self.task.task_dir),
            checked=[c.id for c in checks],
            invocation_id=invocation_id(self.task.task_dir),
        )

    def _evidence(self, settings, mrcr, finished, expectation, quiet) -> Evidence:
        """What the rules read, from the tallies kept so far (no file read twice)."""
        response_stats = None
        if finished and self.task.metrics_path.is_file():  # as validate, once written
            from evalkit.inputs import load_json

            response_stats = length_from_metrics(load_json(self.task.metrics_path))
        t = self.tally
        facts = RolloutFacts(
            unique=t.unique,
            records=t.records,
            duplicates=t.duplicates,
            conflicting=t.conflicting,
            incomplete=t.incomplete,
            prefix_share=t.matched / t.matched_of if t.matched_of else None,
            agent=t.agent,
            reasoning_leaks=t.reasoning_leaks,
        )
        pin, pin_source = gym_pin_of(settings)
        return Evidence(
            mrcr=mrcr,
            is_gym=self.task.is_gym,
            growing=True,
            finished=finished,
            client=self._scans("client-"),
            server=self._scans("server-"),
            other_logs=[
                s for s in self._scans(None) if not s.name.startswith(("client-", "server-"))
            ],
            rollouts=facts if mrcr else None,
            expectation=expectation,
            response_stats=response_stats,
            gym_pin=pin,
            gym_pin_source=pin_source,
            banner_pending=any(f.banner_pending for f in self.logs.values()),
            quiet=quiet,
        )

    def _rate(
        self, now: float, done: int | None, start: float | None
    ) -> tuple[float | None, str | None]:
        """Rollouts per hour: over the refresh window when there is one, else the average
        since the job started (only when no earlier job of the chain wrote rollouts)."""
        if done is None:
            return None, None
        then, done_then = self.history[0]
        if now - then >= 1.0:
            return (done - done_then) / (now - then) * 3600.0, f"last {duration(now - then)}"
        if start is not None and now > start and jobs_in_chain(self.task.task_dir) <= 1:
            return done / (now - start) * 3600.0, "average since the job started"
        return None, None


def _warning(check: Check, task: TaskRun) -> EarlyWarning:
    """A rule's result as advice: the action comes from checks.rule.STATUS_ACTION."""
    kind = status_action(check)
    if kind == STOP:
        action = (
            f"stop: the score will not be usable; kill the job ({kill_words(task)}), fix "
            "the cause and relaunch"
        )
    elif kind == RESUME:  # incomplete: only rollout-count on a finished run
        action = f"resume: {resume_words(task)}, then run `evalkit validate` again"
    else:
        action = "let it run: read the lines quoted before quoting a score"
    return EarlyWarning(check.id, check.message, action, kind)


def _after_the_end(warning: EarlyWarning) -> EarlyWarning:
    if warning.kind != WATCH:
        return warning
    action = "look at it: run `evalkit validate` and read the quoted lines before the score"
    return EarlyWarning(warning.id, warning.message, action, WATCH)


def _resume_advice(task: TaskRun) -> str:
    return (
        "a walltime TIMEOUT is a resume event: run.sub has queued a follow-up job "
        "(sbatch --dependency=afternotok) that resumes from the rollouts already written; "
        f"never cancel it while it is PENDING. If no job is queued, {resume_words(task)}"
    )


def _walltime_warning(eta: float, left: float, task: TaskRun) -> EarlyWarning:
    return EarlyWarning(
        "walltime",
        f"will not finish inside this job: ETA {duration(eta)}, walltime left {duration(left)}",
        "let it run: " + _resume_advice(task),
        WATCH,
    )


def _stopped_warning(task: TaskRun, out_of_time: bool, ended_by: str | None) -> EarlyWarning:
    why = "the job's walltime is over" if out_of_time else "no file in the task changed lately"
    if ended_by and not out_of_time:
        why = "its job was cancelled or failed, which run.sub does not resume"
    if ended_by:
        return EarlyWarning(
            "stopped",
            f"the run stopped before finishing ({why}) and run.sub ended the job chain: "
            f"{ended_by!r}",
            f"resume by hand: {resume_words(task)}, after raising execution.max_walltime if "
            "it was spent",
            RESUME,
        )
    return EarlyWarning(
        "stopped",
        f"the run stopped before finishing ({why})",
        "resume: " + _resume_advice(task),
        RESUME,
    )


# ---------------------------------------------------------------------------- the run


class RunMonitor:
    """Every task under RUN (an invocation, task or artifacts directory)."""

    def __init__(
        self,
        path: str | Path,
        expected_override: int | None = None,
        stale_after: float = STALE_AFTER,
    ) -> None:
        tasks = resolve_task_runs(path)
        self.whole = not names_one_task(path)  # for the cancel and resume commands
        self.tasks = [TaskMonitor(t, expected_override, stale_after) for t in tasks]
        self.outcomes = OutcomeCache()

    def refresh(self, now: float) -> list[TaskStatus]:
        statuses = [self.outcomes.attach(t.task, t.refresh(now)) for t in self.tasks]
        for status in statuses:
            status.whole_invocation = self.whole
        return statuses


def document(statuses: Sequence[TaskStatus]) -> dict[str, Any]:
    return {"tasks": [s.to_json() for s in statuses]}


def exit_code(statuses: Sequence[TaskStatus]) -> int:
    return 1 if any(s.stop for s in statuses) else 0


def ended(statuses: Sequence[TaskStatus]) -> bool:
    """Nothing left to watch: a task awaiting its follow-up job is not over yet."""
    return all(s.state in ENDED and not s.awaiting_resume for s in statuses)
