"""SLURM's view (failures/slurmtext.py rows) beside what the task's logs say: one line a
job of the task, a cause from the accounting state when the logs name none, and a line
wherever the two disagree. A pending follow-up job (squeue, reason Dependency) is the
resume run.sub queued, not a failure."""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.failures.model import ENDED, Hit
from evalkit.checks.failures.rules import BY_ID
from evalkit.checks.failures.slurmtext import SlurmRow
from evalkit.checks.failures.triage import LIVE_STATES, Cause, TaskTriage, decide

# The accounting state each log-side cause goes with.
AGREES = {
    "slurm-time-limit": {"TIMEOUT"},
    "time-limit-while-starting": {"TIMEOUT"},
    "slurm-node-failure": {"NODE_FAIL"},
    "slurm-preempted": {"PREEMPTED"},
    "slurm-cancelled": {"CANCELLED"},
    "slurm-host-oom": {"OUT_OF_MEMORY", "FAILED"},
    "chain-walltime-spent": {"FAILED"},
    "chain-ended": {"FAILED", "COMPLETED"},
}
FAILURE_STATES = {"FAILED", "CANCELLED"}  # how a job with any other log cause ends
# A state that names its cause, when the logs name none.
BY_STATE = {
    "TIMEOUT": "slurm-time-limit",
    "NODE_FAIL": "slurm-node-failure",
    "PREEMPTED": "slurm-preempted",
    "CANCELLED": "slurm-cancelled",
    "OUT_OF_MEMORY": "slurm-host-oom",
}


def _describe(row: SlurmRow) -> str:
    parts = [f"job {row.job}: {row.state}"]
    if row.exit_code:
        parts.append(f"exit {row.exit_code}")
    if row.elapsed:
        parts.append(f"elapsed {row.elapsed}")
    return " ".join(parts) + f" ({row.source}, {row.file}:{row.line})"


def _from_state(t: TaskTriage, row: SlurmRow) -> Cause | None:
    rule = BY_ID.get(BY_STATE.get(row.base_state, ""))
    if rule is None:
        return None
    groups = {"job": row.job, "node": "NODE", "state": row.state}
    hit = Hit(rule.id, row.file, row.line, _describe(row), groups, row.job, where="")
    return Cause(rule, hit, 1, rule.cause(hit, t.facts), rule.fix(hit, t.facts), ENDED)


def combine(t: TaskTriage, rows: Sequence[SlurmRow]) -> None:
    # A row is this task's only by its job id (.slurm_job_id.list, slurm-<id>.log) or as
    # the follow-up a job's run.sub queued (sbatch's `Submitted batch job N` in its log):
    # never the highest id in the file, nor a pending job of another invocation.
    jobs = list(t.attempts.jobs)
    followups = set(t.facts.followups)
    mains = {}
    for row in rows:
        if row.step is None and row.job in jobs and row.job not in mains:
            mains[row.job] = row
    for job in jobs:
        row = mains.get(job)
        if row is None:
            continue
        t.slurm.append(_describe(row))
        state, cause = row.base_state, t.attempts.causes.get(job)
        if state in ("RUNNING", "PENDING", "COMPLETING") and t.state not in LIVE_STATES:
            t.slurm.append(
                f"disagree: Slurm still has job {job} {state} while the task's files stopped "
                "changing: the job is alive (slow file system or a long step); look again "
                "with --watch before acting"
            )
        elif state not in ("RUNNING", "PENDING", "COMPLETING") and t.state in LIVE_STATES:
            t.slurm.append(f"disagree: Slurm says job {job} ended {row.state}; the files look live")
        elif cause and state not in AGREES.get(cause, FAILURE_STATES):
            t.slurm.append(
                f"disagree: Slurm says job {job} ended {row.state}, the logs show {cause}; the "
                "logs name the cause (the exit state is the batch script's)"
            )
    last = mains.get(jobs[-1]) if jobs else None
    unnamed = t.cause is None or not t.cause.recognised
    if unnamed and last is not None and t.state not in LIVE_STATES:
        cause = _from_state(t, last)
        if cause is not None:  # Slurm's state names what the logs could only quote
            if t.cause is not None:
                t.also.insert(0, t.cause)
            t.cause = cause
            t.next, t.verdict = [], ""
            decide(t)
    others = 0
    for row in rows:
        if row.source != "squeue" or row.job in jobs or row.base_state != "PENDING":
            continue
        if row.job not in followups:
            others += 1
            continue
        reason = row.reason or "no reason given"
        if reason == "Dependency":
            t.slurm.append(
                f"job {row.job} is PENDING (Dependency): the follow-up run.sub queued; it "
                "resumes this task when the current job ends, do not cancel it"
            )
        elif reason == "DependencyNeverSatisfied":
            t.slurm.append(
                f"job {row.job} is PENDING (DependencyNeverSatisfied): it will never start; "
                f"cancel it: scancel {row.job}"
            )
        else:
            t.slurm.append(f"job {row.job} is PENDING ({reason}): queued, not failed")
    if others:
        t.slurm.append(
            f"{others} other pending job(s) in the squeue given: not this task's (no job id "
            "or follow-up of its jobs names them)"
        )
    if rows and not mains and jobs and not any(r.source == "squeue" for r in rows):
        t.slurm.append(f"none of the jobs given is this task's (its jobs: {', '.join(jobs[-5:])})")
    elif rows and not jobs:
        t.slurm.append(
            "the task has no job ids of its own (.slurm_job_id.list, slurm-<id>.log): no "
            "row given is taken as its"
        )
