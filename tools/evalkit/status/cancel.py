"""What status tells a user to type to cancel or resume one task's job, in words.

nel 0.2.6 `nel kill ID` takes a job id `<invocation>.<n>` (that job) or an invocation id
(every job of it) (nemo-evaluator-launcher 0.2.6, cli/kill.py, api/functional.py
`kill_job_or_invocation`). `nel resume ID` takes an invocation id only and resubmits every
job of it; per job it runs `rm -f .slurm_job_id.list .accumulated_walltime && sbatch
run.sub` in the task directory (cli/resume.py, executors/slurm/executor.py `resume_job`).
So a task examined alone is cancelled by its job id and resumed by that sbatch, and the
invocation id is named only where the whole invocation was examined (render/status_next).
"""

from __future__ import annotations

from evalkit.runs.invocation import invocation_id, job_id
from evalkit.runs.layout import TaskRun

# Placeholders are plain words: pasted unfilled they fail as an unknown id, never as a
# redirection (`<invocation id>` would be two).
INVOCATION_PLACEHOLDER = "INVOCATION_ID"
JOB_PLACEHOLDER = "JOB_ID"
RESUME_FILES = ".slurm_job_id.list .accumulated_walltime"


def job_label(task_dir: object, invocation: str | None) -> str:
    """The job id of the task in TASK_DIR, or a placeholder naming the part not known."""
    found = job_id(str(task_dir), invocation)
    if found:
        return found
    fallback = job_id(str(task_dir), INVOCATION_PLACEHOLDER)
    return fallback or JOB_PLACEHOLDER


def kill_words(task: TaskRun) -> str:
    return f"nel kill {job_label(task.task_dir, invocation_id(task.task_dir))}"


def resume_words(task: TaskRun) -> str:
    """This job alone, as nel 0.2.6's resume resubmits each job of an invocation."""
    return (
        f"resubmit this job (`rm -f {RESUME_FILES} && sbatch run.sub` in "
        f"{task.task_dir.name}/, what `nel resume` runs per job; `nel resume` takes only the "
        "invocation id and resubmits every job of it)"
    )
