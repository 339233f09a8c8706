"""An MRCR run still being written (what `evalkit status` reads)."""

from __future__ import annotations

from pathlib import Path

from .run import write_mrcr_run


def write_running_mrcr_run(
    root: Path,
    *,
    done: int,
    now: float,
    partial: bool = False,
    logs: bool = True,
    walltime: str = "04:00:00",
    started_ago: float = 600.0,
    **run_kwargs,
) -> tuple[Path, list[bytes]]:
    """A `write_mrcr_run` caught mid-job: the first `done` rollout lines written (plus
    half of the next when `partial`), no aggregate, results.yml or metrics file yet.

    Returns the task directory and the rollout lines still to come, so a test can
    append them. The job-time files follow nel 0.2.6's run.sub
    (executors/slurm/executor.py): `#SBATCH --time <walltime>`, `date +%s >
    .job_start_time` at the start of each job, the job id appended to `.slurm_job_id.list`.
    `logs=False`: the job has not started writing its logs (the directory is empty).
    """
    import os
    import shutil

    task = write_mrcr_run(root, aggregate=False, **run_kwargs)
    artifacts = task / "artifacts"
    rollouts = artifacts / "evaluator_rollouts.jsonl"
    lines = rollouts.read_bytes().splitlines(keepends=True)
    kept, pending = lines[:done], lines[done:]
    payload = b"".join(kept)
    if partial and pending:
        payload += pending[0][: len(pending[0]) // 2]
    rollouts.write_bytes(payload)
    for name in ("results.yml", "eval_factory_metrics.json"):
        (artifacts / name).unlink()
    job = next(task.glob("logs/client-*.log")).stem.removeprefix("client-")
    (task / "run.sub").write_text(
        "#!/bin/bash\n#SBATCH --job-name=nemo_gym.0\n"
        f"#SBATCH --time {walltime}\n#SBATCH --no-requeue\nsrun echo running\n"
    )
    start = int(now - started_ago)
    (task / ".job_start_time").write_text(f"{start}\n")
    (task / ".slurm_job_id.list").write_text(f"{job}\n")
    if not logs:
        shutil.rmtree(task / "logs")
        (task / "logs").mkdir()
    for path in [rollouts, *task.glob("logs/*.log")]:
        os.utime(path, (now - 5, now - 5))  # written a moment ago: the job is alive
    return task, pending
