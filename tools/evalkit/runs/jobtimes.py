"""A job's times as run.sub leaves them: the walltime it asked for, when the current job
of the auto-resume chain started, how many jobs the chain has had, and how it ended.

Marker files are read through evalkit.inputs (bounded; a FIFO or device in a marker's
place is refused, never waited on); an absent or unreadable marker reads as unknown.
"""

from __future__ import annotations

import re
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import open_binary, read_bytes
from evalkit.runs.layout import TaskRun

_SBATCH_TIME = re.compile(r"^#SBATCH\s+--time[=\s]+(\S+)", re.MULTILINE)
# What run.sub's auto-resume handler (nel 0.2.6, executors/slurm/executor.py) prints when
# it ends the chain: the total walltime is spent, or the previous job's state is not one
# it resumes (only TIMEOUT, PREEMPTED and NODE_FAIL are).
_CHAIN_END = re.compile(
    rb"^(?:ERROR: Maximum total walltime.*|previous SLURM_JOB_ID \d+ finished with .* EXIT!)$",
    re.MULTILINE,
)
_HANDLER_HEAD = 16 * 1024  # the handler prints before anything else in the job's log
_MARKER_BYTES = 1024 * 1024  # .job_start_time, .slurm_job_id.list, progress: a few bytes


def read_run_sub(path: Path) -> str:
    return read_bytes(path).decode("utf-8", errors="replace")


def _small_text(path: Path) -> str | None:
    """A marker file's text (a number or a few ids), None when absent or unreadable; a
    FIFO or device in its place is refused, not waited on."""
    try:
        return read_bytes(path, limit=_MARKER_BYTES).decode("utf-8", errors="replace")
    except InputError:
        return None


def progress_count(task: TaskRun) -> int | None:
    """nemo-evaluator's progress file (`artifacts/progress`, one integer): samples done."""
    try:
        return int((_small_text(task.artifacts_dir / "progress") or "").strip())
    except ValueError:
        return None


def walltime_from_run_sub(text: str) -> int | None:
    """Seconds of run.sub's `#SBATCH --time` (Slurm: minutes, MM:SS, H:MM:SS, D-H[:M[:S]])."""
    match = _SBATCH_TIME.search(text)
    if not match:
        return None
    value = match.group(1).strip("'\"")
    if len(value) > 32 or not value.isascii():  # not a Slurm time; int() of it may raise
        return None
    days = 0
    if "-" in value:
        day_part, value = value.split("-", 1)
        if not day_part.isdigit():
            return None
        days = int(day_part)
        parts = [int(p) for p in value.split(":") if p.isdigit()]
        if len(parts) != len(value.split(":")) or not 1 <= len(parts) <= 3:
            return None
        h, m, s = (parts + [0, 0])[:3]
        return days * 86400 + h * 3600 + m * 60 + s
    parts_text = value.split(":")
    if not all(p.isdigit() for p in parts_text) or not 1 <= len(parts_text) <= 3:
        return None
    parts = [int(p) for p in parts_text]
    if len(parts) == 1:
        return parts[0] * 60  # a bare number is minutes to Slurm
    if len(parts) == 2:
        return parts[0] * 60 + parts[1]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def job_start(task_dir: Path) -> tuple[float | None, str | None]:
    """(epoch seconds, where it came from) for the current job of the chain."""
    try:
        started = float((_small_text(task_dir / ".job_start_time") or "").strip())
        return started, ".job_start_time (written by run.sub)"
    except ValueError:
        pass
    ids = task_dir / ".slurm_job_id.list"
    try:
        return ids.stat().st_mtime, "mtime of .slurm_job_id.list (appended at job start)"
    except OSError:
        return None, None


def jobs_in_chain(task_dir: Path) -> int:
    return len((_small_text(task_dir / ".slurm_job_id.list") or "").split())


def chain_end(logs_dir: Path | None, since: float | None) -> str | None:
    """The line with which run.sub's auto-resume handler ended the job chain after the
    current job started (an older chain's end, before a `nel resume`, does not count)."""
    found = (
        sorted(logs_dir.glob("slurm-*.log")) if logs_dir is not None and logs_dir.is_dir() else []
    )
    for path in reversed([p for p in found if p.is_file()]):
        try:
            if since is not None and path.stat().st_mtime < since:
                continue
            with open_binary(path, "a log file") as handle:
                head = handle.read(_HANDLER_HEAD)
        except (OSError, InputError):
            continue
        match = _CHAIN_END.search(head)
        if match:
            return match.group(0).decode("utf-8", "replace").strip()
    return None
