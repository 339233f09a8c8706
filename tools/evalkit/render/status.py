"""The text view of `evalkit status`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalkit.render.inert import one_line
from evalkit.render.outcomes import failure_lines, summary_line
from evalkit.render.report import bar
from evalkit.render.status_next import status_ending
from evalkit.render.triage import says_stop, triage_lines
from evalkit.status.monitor import RESUME, STOP, WATCH, duration

_MARK = {STOP: "[STOP]", WATCH: "[warn]", RESUME: "[resume]"}


def _progress(status: Any) -> str:
    if status.done is None:
        return "progress unknown"
    if not status.expected:
        return f"{status.done} rollouts (expected count unknown; pass --expected N)"
    fraction = status.done / status.expected
    return f"[{bar(fraction)}] {status.done}/{status.expected} ({fraction:.0%})"


def render(statuses: Sequence[Any]) -> str:
    lines: list[str] = []
    for s in statuses:
        lines.append(f"{s.task} ({s.benchmark}): {s.state}  {_progress(s)}")
        if s.expected_source:
            lines.append(f"  expected: {s.expected_source}")
        if s.rate_per_hour is not None:
            lines.append(
                f"  rate: {s.rate_per_hour:.0f} rollouts/h ({s.rate_source}), "
                f"ETA {duration(s.eta_seconds)}"
            )
        if s.walltime_seconds is not None:
            left = duration(s.walltime_left_seconds) if s.job_start_source else "n/a"
            since = f", job start from {s.job_start_source}" if s.job_start_source else ""
            verdict = {True: "; finishes inside it", False: "; will NOT finish inside it"}
            lines.append(
                f"  walltime: {duration(s.walltime_seconds)} (run.sub), left {left}"
                f"{since}{verdict.get(s.will_finish, '')}"
            )
        if s.awaiting_resume:
            lines.append(
                "  waiting: for the follow-up job run.sub queued; it resumes this task when "
                "Slurm starts it (--watch keeps watching)"
            )
        for w in s.warnings:
            lines.append(f"  {_MARK[w.kind]} {w.id}: {w.message}")
            lines.append(f"         {w.action}")
        for note in s.notes:
            lines.append(f"  note: {note}")
        outcomes = getattr(s, "outcomes", None)
        if summary_line(outcomes):
            lines.append(f"  outcomes: {summary_line(outcomes)}")
        for line in failure_lines(outcomes):
            lines.append(f"  {line}" if line.startswith("note: ") else f"  run failure: {line}")
        lines += triage_lines(getattr(s, "triage", None))
    stop = any(s.stop or says_stop(getattr(s, "triage", None)) for s in statuses)
    lines.append("status: stop and fix" if stop else "status: ok")
    # each line holds run data (task names, quoted log lines): printed on one line each
    return "\n".join(one_line(line) for line in lines) + "\n" + status_ending(statuses)
