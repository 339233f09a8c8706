"""Dead nel 0.2.6 task directories for the failure-signature tests, built from real parts.

- run.sub: the real launcher 0.2.6 renders it (`nel run --dry-run` in this process,
  helpers/nel.py) from recipes/examples/gym/example_mrcr.yaml. A copy of that render is
  checked in (tests/data/failures_corpus/run.sub), so that the tests which only read a
  dead task need no launcher; a `launcher` test keeps the copy equal to a fresh render.
- run.sub's own messages: the launcher's own shell blocks (executors/slurm/executor.py
  `_get_wait_for_server_handler`, `_generate_autoresume_handler`) run by bash, with
  `curl`, `sleep`, `sacct` and `sbatch` stubbed.
- every other line is the message its source formats, with the arguments filled in; the
  source is named beside each one in LINES. A prefix added by a logger or a process
  (vLLM's `(EngineCore pid=N)`, pyxis's `slurmstepd: error:`) is marked where it is a
  guess.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INVOCATION = "0123456789abcdef"
INVOCATION_DIR = f"20261203_101500-{INVOCATION}"
CONFIG = REPO / "recipes/examples/gym/example_mrcr.yaml"
USER_CONFIG = "configs/mrcr_1m.yaml"
SAVED_RUN_SUB = REPO / "tests/data/failures_corpus/run.sub"

# rule id -> (log file, lines, source). Written exactly as the source formats them.
LINES: dict[str, tuple[str, list[str], str]] = {
    "vllm-kv-cache-too-small": (
        "server-0-{job}-0.log",
        [
            "(EngineCore pid=263) ERROR 12-03 10:20:01 [core.py:1100] EngineCore failed to start.",
            "(EngineCore pid=263) ValueError: To serve at least one request with the model's max "
            "seq len (1100000), (52.66 GiB KV cache is needed, which is larger than the available "
            "KV cache memory (23.37 GiB). Based on the available memory, the estimated maximum "
            "model length is 488448. Try increasing `gpu_memory_utilization` (which also controls "
            "CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the "
            "engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more "
            "details.",
        ],
        "vllm 0.26.0 vllm/v1/core/kv_cache_utils.py:779 (the ValueError); the "
        "`(EngineCore pid=N) ERROR ... [core.py:N]` prefix is a guess",
    ),
    "vllm-unknown-reasoning-parser": (
        "server-0-{job}-0.log",
        [
            "Traceback (most recent call last):",
            "KeyError: 'invalid reasoning parser: nemotron_nano (chose from { cohere_command3,"
            "deepseek_r1,deepseek_v3,glm45,granite,mistral,nemotron_v3,qwen3,step3 })'",
        ],
        "vllm 0.26.0 vllm/entrypoints/openai/api_server.py:610 (KeyError text; the list is a "
        "subset of the 28 parsers tools/evalkit/data/vllm-0.26.0-serve.json records)",
    ),
    "model-name-404": (
        "client-{job}.log",
        [
            'Error code: 404 - {"error":{"message":"The model `nvidia/Nemotron-3-Nano` does not '
            'exist.","type":"NotFoundError","param":"model","code":404}}',
        ],
        "vllm 0.26.0 vllm/entrypoints/serve/engine/serving.py:64 (the message, type and "
        "code); the `Error code: 404 - ` client prefix is a guess (openai-python's APIStatusError)",
    ),
    "slurm-time-limit": (
        "slurm-{job}.log",
        [
            "slurmstepd: error: *** JOB {job} ON node-017 CANCELLED AT 2026-12-03T14:15:01 "
            "DUE TO TIME LIMIT ***"
        ],
        "slurm src/slurmd/slurmstepd/req.c _handle_signal_container (the `ON %s` form)",
    ),
    "vllm-invalid-choice": (
        "server-0-{job}-0.log",
        [
            "usage: vllm serve [model_tag] [options]",
            "vllm serve: error: argument --kv-cache-dtype: invalid choice: 'fp8_e4m3fn' (choose "
            "from auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla)",
        ],
        "CPython 3.12 Lib/argparse.py ArgumentParser._check_value and error() (`%(prog)s: "
        "error: %(message)s`); the choices are an abridged guess of vLLM 0.26's list",
    ),
    "vllm-cuda-oom": (
        "server-0-{job}-0.log",
        [
            "(EngineCore pid=263) INFO 12-03 10:20:01 [default_loader.py:431] Loading weights",
            "(EngineCore pid=263) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "1.75 GiB. GPU 0 has a total capacity of 79.11 GiB of which 120.00 MiB is free.",
        ],
        "torch 2.11.0 c10/cuda/CUDACachingAllocator.cpp (the OutOfMemoryError text); the "
        "loader line before it is a guess",
    ),
    "hf-gated-repo": (
        "server-0-{job}-0.log",
        [
            "huggingface_hub.errors.GatedRepoError: 403 Client Error.",
            "",
            "Cannot access gated repo for url "
            "https://huggingface.co/nvidia/Gated-Model/resolve/main/config.json.",
        ],
        "huggingface_hub 1.33.0 huggingface_hub/utils/_http.py:860 (message) and errors.py:343 "
        "(GatedRepoError)",
    ),
    "hf-offline": (
        "server-0-{job}-0.log",
        [
            "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in "
            "the disk cache and outgoing traffic has been disabled. To enable hf.co look-ups and "
            "downloads online, set 'local_files_only' to False.",
        ],
        "huggingface_hub 1.33.0 huggingface_hub/file_download.py:1945",
    ),
    "pyxis-image-import": (
        "slurm-{job}.log",
        [
            "pyxis: importing docker image: vllm/vllm-openai:v0.26.1",
            "slurmstepd: error: pyxis: child 3444995 failed with error code: 1",
            "slurmstepd: error: pyxis: failed to import docker image",
            "slurmstepd: error: pyxis: printing enroot log file:",
            "slurmstepd: error: pyxis:     [ERROR] URL https://registry-1.docker.io/v2/vllm/"
            "vllm-openai/manifests/v0.26.1 returned error code: 404 Not Found",
        ],
        "NVIDIA/pyxis pyxis_slurmstepd.c (`pyxis: importing docker image: %s`, `pyxis: failed "
        "to import docker image`); the `slurmstepd: error:` prefix and the enroot [ERROR] line "
        "are as job logs show them (a guess)",
    ),
    "enroot-mount": (
        "slurm-{job}.log",
        [
            "slurmstepd: error: pyxis: container start failed with error code: 1",
            "slurmstepd: error: pyxis: printing enroot log file:",
            "slurmstepd: error: pyxis:     enroot-mount: failed to mount: /lustre/ckpt/model at "
            "/tmp/enroot-data/user-1000/pyxis_4100001.0/checkpoint: No such file or directory",
        ],
        "a guess: the enroot-mount line's shape as public job logs show it",
    ),
    "mrcr-bootstrap-stop": (
        "client-{job}.log",
        [
            "gym bootstrap: /opt/Gym is not a git repository, so the Gym pin cannot apply; use a "
            "git-backed Gym image (references/gym.md)",
        ],
        "recipes/examples/gym/example_mrcr.yaml:177 (gym_fail)",
    ),
    "gym-prepare-failed": (
        "client-{job}.log",
        [
            "gym bootstrap: ng_prepare_benchmark (xtrace paused, the call carries HF_TOKEN)",
            "Traceback (most recent call last):",
            "FileNotFoundError: [Errno 2] No such file or directory: "
            "'resources_servers/mrcr/data/config_n3_2m.yaml'",
        ],
        "recipes/examples/gym/example_mrcr.yaml:237 (the prepare line); the Python error after "
        "it is a guess",
    ),
    "slurm-host-oom": (
        "slurm-{job}.log",
        [
            "slurmstepd: error: Detected 1 oom-kill event(s) in StepId={job}.0. Some of your "
            "processes may have been killed by the cgroup out-of-memory handler.",
        ],
        "slurm src/plugins/task/cgroup/task_cgroup_memory.c (the error); the `slurmstepd: "
        "error:` prefix as slurmstepd logs it",
    ),
    "slurm-node-failure": (
        "slurm-{job}.log",
        [
            "slurmstepd: error: *** JOB {job} ON node-017 CANCELLED AT 2026-12-03T14:15:01 "
            "DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"
        ],
        "slurm src/slurmd/slurmstepd/req.c _handle_signal_container",
    ),
    "slurm-preempted": (
        "slurm-{job}.log",
        [
            "slurmstepd: error: *** JOB {job} ON node-017 CANCELLED AT 2026-12-03T14:15:01 "
            "DUE TO PREEMPTION ***"
        ],
        "slurm src/slurmd/slurmstepd/req.c _handle_signal_container",
    ),
    "slurm-cancelled": (
        "slurm-{job}.log",
        ["slurmstepd: error: *** JOB {job} ON node-017 CANCELLED AT 2026-12-03T14:15:01 ***"],
        "slurm src/slurmd/slurmstepd/req.c _handle_signal_container",
    ),
}


@functools.cache
def rendered_run_sub() -> str:
    """The real launcher's run.sub for the MRCR example (4 nodes x 4 GPUs, TP 2 x DP 2)."""
    from helpers.nel import blank_paths, dry_run

    overrides = {p: "x" for p in blank_paths(CONFIG)}
    overrides["execution.hostname"] = "h"
    # The launcher embeds the config's absolute path in run.sub, in plain text and inside
    # the base64 copies of its configs (where YAML folds lines by length): render a copy
    # at one fixed path, so the script is the same whichever clone renders it.
    fixed = Path("/tmp/evalkit-fixture") / USER_CONFIG  # not TMPDIR: one path on every machine
    fixed.parent.mkdir(parents=True, exist_ok=True)
    staged = fixed.with_name(f".{fixed.name}.{os.getpid()}")
    staged.write_bytes(CONFIG.read_bytes())
    os.replace(staged, fixed)  # atomic: test workers may render at once
    result = dry_run(fixed, overrides)
    assert result.returncode == 0, result.stderr[-2000:]
    # The launcher names the invocation directory by the time and a fresh id; the
    # fixtures use one fixed name, and the config's path relative to the skill.
    # So do the random parts of a render (the invocation id, the 4-hex scope of each
    # secret's variable), so that two renders are the same file.
    script = re.sub(r"\d{8}_\d{6}-[0-9a-f]{16}", INVOCATION_DIR, result.scripts[0])
    script = re.sub(
        r'NEL_INVOCATION_ID="[0-9a-f]{16}"', f'NEL_INVOCATION_ID="{INVOCATION}"', script
    )
    script = re.sub(r"(\$\{[A-Z0-9_]+?)_[0-9a-f]{4}_([A-Z0-9_]+\})", r"\1_0000_\2", script)
    # The run stands for a user's copy of the example, launched as configs/mrcr_1m.yaml.
    return script.replace(str(fixed), USER_CONFIG).replace(f"{REPO}/", "")


@functools.cache
def saved_run_sub() -> str:
    """rendered_run_sub()'s output as checked in (regenerate: python
    tests/helpers/failure_logs.py --run-sub)."""
    return SAVED_RUN_SUB.read_text()


def _stubs(tmp: Path, **scripts: str) -> dict[str, str]:
    bin_dir = tmp / "stub-bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def health_wait_output(tmp: Path, timeout: int, server_alive: bool = True) -> str:
    """What run.sub's health wait prints when the server never answers 200: the
    launcher's own block, bash running it, curl answering 000 and sleep returning at once
    (shell functions, so a 14400 s wait of 2880 probes takes a moment). TMP is unused:
    the output is the same for the same arguments, so it is made once."""
    return _health_wait(timeout, server_alive)


@functools.cache
def _health_wait(timeout: int, server_alive: bool) -> str:
    from nemo_evaluator_launcher.executors.slurm import executor

    block = executor._get_wait_for_server_handler(
        "127.0.0.1", 8000, "/health", timeout, check_pid=True, pid_var="SERVER_PIDS"
    )
    pid = "$$" if server_alive else "2147483646"
    stubs = (
        "curl() { printf 000; }\nsleep() { :; }\ndate() { echo 'Thu Dec  3 10:20:00 UTC 2026'; }\n"
    )
    script = f"{stubs}SERVER_PIDS=({pid})\n{block}\n"
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    return run.stdout


def chain_output(tmp: Path, task: Path, prev_job: str, prev_state: str, prev_elapsed: str,
                 max_walltime: str = "120:00:00") -> str:  # fmt: skip
    """What run.sub's auto-resume handler prints as the next job starts (the launcher's
    own block, `sacct` answering PREV_STATE and PREV_ELAPSED)."""
    from nemo_evaluator_launcher.executors.slurm import executor

    answer = f'case "$*" in *State*) echo "{prev_state}" ;; *) echo "{prev_elapsed}" ;; esac'
    env = _stubs(tmp, sacct=answer, sbatch="echo Submitted batch job 4200000")
    script = tmp / "handler.sh"
    script.write_text(executor._generate_autoresume_handler(task, max_walltime) + "\n")
    run = subprocess.run(["bash", str(script), prev_job], capture_output=True, text=True, env=env)
    return run.stdout


def dead_task(root: Path, logs: dict[str, str], jobs: list[str] | None = None,
              ended_ago: float = 7200.0, accumulated: int | None = None) -> Path:  # fmt: skip
    """`<root>/<ts>-<inv>/nemo_gym.0` with the real run.sub, LOGS (file name -> text) and
    the chain's marker files, every file last written ENDED_AGO seconds ago."""
    task = root / INVOCATION_DIR / "nemo_gym.0"
    (task / "logs").mkdir(parents=True, exist_ok=True)
    (task / "artifacts").mkdir(exist_ok=True)
    (task / "run.sub").write_text(saved_run_sub())
    for name, text in logs.items():
        (task / "logs" / name).write_text(text)
    if jobs:
        (task / ".slurm_job_id.list").write_text("".join(f"{j}\n" for j in jobs))
    if accumulated is not None:
        (task / ".accumulated_walltime").write_text(f"{accumulated}\n")
    then = time.time() - ended_ago
    (task / ".job_start_time").write_text(f"{int(then - 600)}\n")
    for path in task.rglob("*"):
        os.utime(path, (then, then))
    return task


def signature_logs(rule_id: str, job: str = "4100001") -> dict[str, str]:
    name, lines, _source = LINES[rule_id]
    return {
        name.replace("{job}", job): "".join(line.replace("{job}", job) + "\n" for line in lines)
    }


def three_health_timeouts(root: Path, tmp: Path, ended_ago: float = 7200.0) -> Path:
    """A task whose server never came up three jobs in a row: run.sub gave up its
    14400 s health wait each time, the checkpoint 320 of 500 shards in (README's block,
    and the dead run of tests/evals)."""
    jobs = ["4100001", "4100002", "4100003"]
    wait = health_wait_output(tmp, timeout=14400)
    shards = (
        "Loading safetensors checkpoint shards:  64% Completed | 320/500 "
        "[3:59:40<2:14:50, 0.02it/s]\n"
    )
    logs = {f"slurm-{j}.log": wait for j in jobs}
    logs.update({f"server-0-{j}-0.log": shards for j in jobs})
    return dead_task(root, logs, jobs=jobs, ended_ago=ended_ago)


def triage_of(cli, task, *extra):
    """`status TASK --format json`'s one task, with the exit code."""
    code, out, err = cli("status", task, "--format", "json", "--stale-after", "600", *extra)
    assert err == "", err
    return code, json.loads(out)["tasks"][0]


if __name__ == "__main__":  # python tests/helpers/failure_logs.py DEST: the eval's run
    import sys
    import tempfile

    sys.path.insert(0, str(REPO / "tests"))
    if sys.argv[1] == "--run-sub":
        SAVED_RUN_SUB.write_text(rendered_run_sub())
        raise SystemExit(0)
    with tempfile.TemporaryDirectory() as scratch:
        done = three_health_timeouts(Path(sys.argv[1]), Path(scratch))
    (done / ".job_start_time").unlink()
