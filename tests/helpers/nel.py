"""Run the real nel 0.2.6 launcher's `run --dry-run` on a config, offline.

The launcher needs a few environment variables even for a dry-run (USER for
execution.username, every `host:` variable, MLFLOW_TRACKING_URI where an export block
reads it); `dry_run` supplies harmless values and runs in an empty working directory so
no stray `.env` is picked up.

`dry_run` calls the launcher in this process (helpers/launcher.py: the same argv through
the launcher's own `main`), so its ~3 s of imports are paid once per test worker, not once
per config. `dry_run_subprocess` spawns the real `nel` executable the same way, for the
tests of the CLI itself and the one test showing both give the same verdicts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

DRY_RUN_ENV = {
    "USER": "evalkit-ci",
    "HF_TOKEN": "hf_dry_run_token_value_7c1e",
    "MLFLOW_TRACKING_URI": "http://127.0.0.1:5000",
    "INFERENCE_API_KEY": "dry-run-inference-key",
    "TAU3_USER_BASE_URL": "https://user-sim.example.com/v1",
    "TAU3_USER_MODEL": "user-sim-model",
    "DUMMY_API_KEY": "dummy",
    "NEMO_EVALUATOR_TRUST_PRE_CMD": "1",
    "NEMO_EVALUATOR_TRUST_UNLISTED_TASKS": "1",
    # Registry look-ups fail fast offline instead of waiting on DNS.
    "NO_PROXY": "*",
}


def nel_executable() -> str | None:
    """The `nel` installed beside this interpreter (the test extra pins 0.2.6)."""
    beside = Path(sys.executable).parent / "nel"
    if beside.exists():
        return str(beside)
    return shutil.which("nel")


@dataclass
class DryRun:
    returncode: int
    stdout: str
    stderr: str
    # The refusal in one line ("Type: message"); empty when accepted. In-process only.
    error: str = ""

    @property
    def scripts(self) -> list[str]:
        """The rendered sbatch scripts printed by the dry-run, one per task."""
        chunks = self.stdout.split("#!/bin/bash")[1:]
        out = []
        for chunk in chunks:
            body = chunk.split("To submit jobs, run the executor without --dry-run")[0]
            # The dry-run prints the redacted .secrets.env after the script; it is not bash.
            body = body.split("----------- Secrets (redacted)")[0]
            out.append("#!/bin/bash" + body)
        return out


def dry_run_argv(config: str | Path, overrides: dict[str, str] | None) -> list[str]:
    argv = ["run", "--config", str(Path(config).resolve()), "--dry-run"]
    for key, value in (overrides or {}).items():
        argv += ["-o", f"{key}={value}"]
    return argv


def dry_run_environ(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without NEMO_EVALUATOR_*, the defaults, then `env`."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("NEMO_EVALUATOR_")}
    full_env.update(DRY_RUN_ENV)
    full_env.update(env or {})
    return full_env


def dry_run(
    config: str | Path,
    overrides: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 180,
) -> DryRun:
    """`nel run --config CONFIG --dry-run -o k=v ...`, in this process (see launcher.py).
    `timeout` is kept for callers; an in-process call cannot be cut short."""
    from helpers.launcher import launcher

    with tempfile.TemporaryDirectory(prefix="nel-dry-run-") as cwd:
        return launcher().run(dry_run_argv(config, overrides), dry_run_environ(env), cwd)


def dry_run_subprocess(
    config: str | Path,
    overrides: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 180,
) -> DryRun:
    """The same dry-run through the real `nel` executable, as a fresh process."""
    nel = nel_executable()
    if nel is None:
        raise RuntimeError(
            "nel is not installed; run `bash tests/run.sh` to install the test extra"
        )
    cmd = [nel, *dry_run_argv(config, overrides)]
    with tempfile.TemporaryDirectory(prefix="nel-dry-run-") as cwd:
        proc = subprocess.run(
            cmd, cwd=cwd, env=dry_run_environ(env), capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
    return DryRun(proc.returncode, proc.stdout, proc.stderr)


def blank_paths(config: str | Path) -> list[str]:
    """Dotted paths (list indices as numbers) of every `???` value written in the file."""
    data = yaml.safe_load(Path(config).read_text())
    found: list[str] = []

    def walk(node: object, prefix: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{prefix}.{k}" if prefix else str(k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{prefix}.{i}")
        elif node == "???":
            found.append(prefix)

    walk(data, "")
    return found
