"""What a task directory says about itself, for the fixes and the next command: ids,
topology, walltimes and the vLLM command from run.sub (nel 0.2.6
executors/slurm/executor.py renders all of them), the chain's marker files, and what the
logs showed (failures/scan.py)."""

from __future__ import annotations

import base64
import binascii
import re
import shlex
from pathlib import Path

from evalkit.checks.failures.model import TaskFacts
from evalkit.checks.failures.scan import LogFacts
from evalkit.errors import InputError
from evalkit.inputs import read_bytes
from evalkit.runs.invocation import invocation_id, task_index
from evalkit.runs.jobtimes import walltime_from_run_sub
from evalkit.runs.layout import TaskRun
from evalkit.secrets.quote import redact_quoted

_MAX_WALLTIME = re.compile(r'^_max_walltime="([^"\n]{1,32})"', re.MULTILINE)
_TIMEOUT = re.compile(r"^TIMEOUT=(\d{1,9})$", re.MULTILINE)
_NODES = re.compile(r"^#SBATCH\s+--nodes[=\s]+(\d{1,6})", re.MULTILINE)
_GRES = re.compile(r"^#SBATCH\s+--gres[=\s]+\S*?gpu:(?:\w+:)?(\d{1,3})", re.MULTILINE)
_JOB_NAME = re.compile(r"^#SBATCH\s+--job-name[=\s]+(\S{1,200})", re.MULTILINE)
# run.sub echoes the resolved config as comments; its metadata holds the launch command
# (nel 0.2.6: `metadata.launcher_command`).
_LAUNCHED = re.compile(r"^#\s+launcher_command: nel run --config (\S{1,1000})", re.MULTILINE)
_DEPLOY_CMD = re.compile(r'echo "([A-Za-z0-9+/=]{8,})" \| base64 -d > deployment_cmd\.sh')
_RUN_SUB_BYTES = 8 * 1024 * 1024


def _small_int(path: Path) -> int | None:
    try:
        return int(read_bytes(path, limit=4096).decode("ascii", "replace").strip())
    except (InputError, ValueError):
        return None


def _job_list(path: Path) -> list[str]:
    try:
        text = read_bytes(path, limit=1024 * 1024).decode("ascii", "replace")
    except InputError:
        return []
    return [w for w in text.split() if w.isdigit()]


def vllm_args(command: str) -> dict[str, str]:
    """`--flag value` and `--flag=value` pairs of a `vllm serve` command ("" for a switch)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    args: dict[str, str] = {}
    for i, word in enumerate(words):
        if not word.startswith("--"):
            continue
        flag, eq, value = word.partition("=")
        if not eq:
            nxt = words[i + 1] if i + 1 < len(words) else ""
            value = "" if nxt.startswith("--") else nxt
        args[flag] = value
    return args


def _deployment_command(run_sub: str) -> str | None:
    match = _DEPLOY_CMD.search(run_sub)
    if not match:
        return None
    try:
        return base64.b64decode(match.group(1)).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


def task_facts(task: TaskRun, logs: LogFacts) -> TaskFacts:
    facts = TaskFacts(gym=task.is_gym)
    # the run model's one reader: run.sub's NEL_INVOCATION_ID, else the launcher's folder name
    facts.invocation_id = invocation_id(task.task_dir)
    index = task_index(task.task_dir)  # run.sub's recorded <task>.<n>, else the folder's
    facts.job_index = None if index is None else str(index)
    run_sub = task.task_dir / "run.sub"
    text = ""
    if run_sub.is_file():
        try:
            text = read_bytes(run_sub, limit=_RUN_SUB_BYTES).decode("utf-8", "replace")
        except InputError:
            text = ""
    if text:
        facts.walltime_seconds = walltime_from_run_sub(text)
        if m := _MAX_WALLTIME.search(text):
            facts.max_walltime = m.group(1)
        if m := _TIMEOUT.search(text):
            facts.readiness_timeout = int(m.group(1))
        if m := _NODES.search(text):
            facts.nodes = int(m.group(1))
        if m := _LAUNCHED.search(text):
            facts.config_path = redact_quoted(m.group(1))
        if m := _JOB_NAME.search(text):
            facts.job_name = m.group(1).strip("'\"")
        if m := _GRES.search(text):
            facts.gpus_per_node = int(m.group(1))
        command = _deployment_command(text)
        if command:
            facts.vllm_args = vllm_args(command)
    facts.served_model_name = logs.served or facts.vllm_args.get("--served-model-name") or None
    facts.shards = logs.shards
    facts.waiting_jobs, facts.ready_jobs = set(logs.waiting_jobs), set(logs.ready_jobs)
    facts.loaded_files = set(logs.loaded_files)
    facts.prepare_lines = dict(logs.prepare_lines)
    facts.ok_requests = logs.ok_requests
    try:
        facts.rollouts_written = task.rollouts_path.stat().st_size > 0
    except OSError:
        facts.rollouts_written = False
    facts.accumulated_seconds = _small_int(task.task_dir / ".accumulated_walltime")
    facts.jobs = _job_list(task.task_dir / ".slurm_job_id.list")
    facts.followups = set(logs.submitted)
    return facts
