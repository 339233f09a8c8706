"""What nemo-evaluator-launcher 0.2.6's SLURM executor leaves beside a task
(`executors/slurm/executor.py`): the run.sub script, its deployment srun line, and what
`nel status` prints for the jobs (`cli/status.py`, run here itself).

Log names follow run.sub's `--output` patterns: `.../logs/slurm-%A.log`, the server loop's
`.../logs/server-${g}-%A-%t.log` and the client's `.../logs/client-%A.log` (auxiliary
deployments write `NAME-server-${g}-%A-%t.log`). tests/test_real_formats.py checks these
names against a real dry-run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .serverlog import VLLM_IMAGE


def run_sub(
    remote_task_dir: str,
    invocation: str,
    instances: int,
    config_ef: str,
    checkpoint: str | None = None,
) -> str:
    """The lines of run.sub the tools read, in the launcher's own wording and order
    (`executors/slurm/executor.py`: the #SBATCH header, TASK_DIR and NEL_INVOCATION_ID, the
    per-instance server loop, the client srun with config_ef.yaml base64-embedded). The
    walltime bookkeeping, proxy and health checks between them are left out."""
    import base64

    blob = base64.b64encode(config_ef.encode()).decode()
    logs = f"{remote_task_dir}/logs"
    return (
        "#!/bin/bash\n"
        "# Abridged: the lines of a nel 0.2.6 SLURM run.sub that evalkit and the logs depend on.\n"
        "#SBATCH --time 04:00:00\n"
        "#SBATCH --account evalkit\n"
        "#SBATCH --partition batch\n"
        f"#SBATCH --nodes {instances}\n"
        "#SBATCH --ntasks-per-node 1\n"
        "#SBATCH --gres gpu:4\n"
        "#SBATCH --exclusive\n"
        "#SBATCH --job-name evalkit-nemo-evaluator-launcher.nemo_gym.0\n"
        "#SBATCH --no-requeue\n"
        f"#SBATCH --output {logs}/slurm-%A.log\n\n"
        f'TASK_DIR="{remote_task_dir}"\n'
        f'NEL_INVOCATION_ID="{invocation}"\n\n'
        "# deployment server\n"
        "HEAD_NODE_IPS=()\n"
        "SERVER_PIDS=()\n"
        f"for ((g=0; g<{instances}; g++)); do\n"
        "    START_IDX=$((g * 1))\n"
        '    INSTANCE_NODES_ARR=("${DEPLOY_NODES_ARRAY[@]:$START_IDX:1}")\n'
        '    INSTANCE_NODELIST=$(IFS=,; echo "${INSTANCE_NODES_ARR[*]}")\n'
        '    MASTER_IP="${NODES_IPS_ARRAY[$START_IDX]}"\n'
        '    echo "Instance $g: MASTER_IP=$MASTER_IP, nodes: ${INSTANCE_NODES_ARR[*]}"\n'
        '    srun --mpi pmix --overlap --nodelist "$INSTANCE_NODELIST" --nodes 1 --ntasks 1 '
        f"--container-image {VLLM_IMAGE} "
        + (f"--container-mounts {checkpoint}:/checkpoint:ro " if checkpoint else "")
        + f"--output {logs}/server-${{g}}-%A-%t.log "
        "bash -c 'bash deployment_cmd.sh' &\n"
        "    SERVER_PIDS+=($!)\n"
        "done\n\n"
        "# evaluation client\n"
        'srun --mpi pmix --overlap --nodelist "${PRIMARY_NODE}" --nodes 1 --ntasks 1 '
        "--container-image gym-git-image --no-container-mount-home "
        f"--output {logs}/client-%A.log bash -c '"
        f'echo "{blob}" | base64 -d > config_ef.yaml && '
        "nemo-evaluator run_eval --run_config config_ef.yaml'\n"
    )


def add_deployment(task_dir: Path, checkpoint: str, image: str = "vllm/vllm-openai:v0.11.0"):
    """Append the deployment srun line nel 0.2.6's slurm executor writes into run.sub
    (executor.py: `--container-image <deployment.image>` then `--container-mounts
    <checkpoint_path>:/checkpoint:ro` on the same line)."""
    run_sub = Path(task_dir) / "run.sub"
    with run_sub.open("a") as handle:
        handle.write(
            '    srun --mpi pmix --overlap --nodelist "$INSTANCE_NODELIST" --nodes 1 '
            f"--ntasks 1 --container-image {image} --container-mounts "
            f"{checkpoint}:/checkpoint:ro,/lustre/cache:/cache --output "
            f"{task_dir}/logs/server-${{g}}-%A-%t.log bash -c 'vllm serve /checkpoint' &\n"
        )


def nel_status_table(jobs: Sequence[dict]) -> str:
    """What `nel status` prints for these jobs, produced by the launcher's own code.

    Each job is shaped as `nemo_evaluator_launcher.api.functional.get_status` returns it for
    the SLURM executor: `{"invocation", "job_id": "<invocation>.<n>", "status": "running" |
    "success" | "failed" | "pending" | "killed", "progress": int | "unknown", "data":
    {"slurm_job_id", "remote_rundir_path", ...}}`. Runs `cli/status.py` `Cmd._print_table`
    (colours are off when stdout is not a terminal) and returns its output.
    """
    import contextlib
    import io

    from nemo_evaluator_launcher.cli.status import Cmd

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        Cmd(job_ids=[])._print_table(list(jobs))
    return buffer.getvalue()


def slurm_status_job(
    invocation: str, index: int, status: str, slurm_job_id: int, rundir: str, progress=None
) -> dict:
    """One entry of get_status() for a SLURM job (`executors/slurm/executor.py` stores
    `slurm_job_id` and `remote_rundir_path`, the task directory, per job)."""
    return {
        "invocation": invocation,
        "job_id": f"{invocation}.{index}",
        "status": status,
        "progress": "unknown" if progress is None else progress,
        "data": {"slurm_job_id": str(slurm_job_id), "remote_rundir_path": rundir},
    }
