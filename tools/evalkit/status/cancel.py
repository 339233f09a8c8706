"""What status tells a user to type to cancel or resume one task's job, in words.

nel 0.2.6 `nel kill ID` takes a job id `<invocation>.<n>` (that job) or an invocation id
(every job of it) (nemo-evaluator-launcher 0.2.6, cli/kill.py, api/functional.py
`kill_job_or_invocation`). `nel resume ID` takes an invocation id only and resubmits every
job of it; per job it runs `rm -f .slurm_job_id.list .accumulated_walltime && sbatch
run.sub` in the task directory (cli/resume.py, executors/slurm/executor.py `resume_job`).
So a task examined alone is cancelled by its job id and resumed by that sbatch, and the
invocation id is named only where the whole invocation was examined (render/status_next).
Both ids come from run.sub (runs/invocation.py), so a task directory copied under another
name gets the same commands; a placeholder comes with where to find what it stands for.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.runs.invocation import (
    INVOCATION_PLACEHOLDER,
    JOB_PLACEHOLDER,
    id_hint,
    invocation_id,
    job_label,
    recorded,
)
from evalkit.runs.layout import TaskRun
from evalkit.shellword import shell_word

RESUME_FILES = ".slurm_job_id.list .accumulated_walltime"

__all__ = [
    "INVOCATION_PLACEHOLDER",
    "JOB_PLACEHOLDER",
    "RESUME_FILES",
    "id_hint",
    "job_label",
    "kill_words",
    "resubmit_dir",
    "resume_words",
]


def kill_words(task: TaskRun) -> str:
    label = job_label(task.task_dir, invocation_id(task.task_dir))
    hint = id_hint(label)
    return f"nel kill {label}" + (f"; {hint}" if hint else "")


def resubmit_dir(task_dir: Path) -> Path | str:
    """Where `sbatch run.sub` resubmits the job: the task directory run.sub records when
    TASK_DIR is a copy under another name (the job's paths are that directory's), else
    TASK_DIR itself."""
    cluster = recorded(task_dir).task_dir
    if cluster and cluster.rsplit("/", 1)[-1] != task_dir.name:
        return cluster
    return task_dir


def resume_words(task: TaskRun) -> str:
    """This job alone, as nel 0.2.6's resume resubmits each job of an invocation."""
    where = f"{task.task_dir.name}/"
    cluster = resubmit_dir(task.task_dir)
    if cluster != task.task_dir:  # a renamed copy
        where += f" (on the cluster {shell_word(cluster)}, as its run.sub records)"
    return (
        f"resubmit this job (`rm -f {RESUME_FILES} && sbatch run.sub` in {where}, what "
        "`nel resume` runs per job; `nel resume` takes only the invocation id and "
        "resubmits every job of it)"
    )
