"""`--with-launcher`: run the real launcher's dry-run and examine what it renders."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.errors import UsageError

SKILL_ROOT = Path(__file__).resolve().parents[3]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
NOISE = (
    "Traceback",
    "File ",
    "During handling",
    "The above exception",
    "Set the environment variable HYDRA_FULL_ERROR",
    "full_key:",
    "object_type=",
    "^",
    "~",
)


@dataclass
class LauncherResult:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    scripts: list[str] = field(default_factory=list)
    syntax_errors: list[tuple[int, str]] = field(default_factory=list)

    @property
    def error_line(self) -> str:
        return last_error_line(self.stderr + "\n" + self.stdout)


def find_nel(explicit: str | None) -> list[str]:
    if explicit:
        if not Path(explicit).exists() and shutil.which(explicit) is None:
            raise UsageError(f"--nel {explicit}: not found")
        return [explicit]
    wrapper = SKILL_ROOT / "scripts" / "nel-gym.sh"
    if wrapper.is_file():
        return ["bash", str(wrapper)]
    nel = shutil.which("nel")
    if nel is None:
        raise UsageError("no launcher found: pass --nel PATH, or install nel 0.2.6")
    return [nel]


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit)\w*: \S")


def last_error_line(text: str) -> str:
    """The launcher's own error message: the last `SomeError: ...` line, else the last
    line that is not traceback scaffolding."""
    lines = ANSI.sub("", text).splitlines()
    for raw in reversed(lines):
        if EXCEPTION_LINE.match(raw):
            return raw.strip()[:300]
    for raw in reversed(lines):
        line = raw.rstrip()
        if not line.strip() or raw[:1].isspace():
            continue
        if line.lstrip().startswith(NOISE):
            continue
        return line.strip()[:300]
    return "(no error output)"


END_MARKERS = ("----------- Secrets", "=========== Task", "To submit jobs, run the executor")


def rendered_scripts(stdout: str) -> list[str]:
    """The sbatch scripts a slurm dry-run prints, one per task (trailing sections cut)."""
    scripts = []
    for chunk in stdout.split("#!/bin/bash")[1:]:
        for marker in END_MARKERS:
            chunk = chunk.split(marker)[0]
        scripts.append("#!/bin/bash" + chunk)
    return scripts


# The launcher ships pre_cmd/post_cmd into the job as `echo "<base64>" | base64 -d > X.sh`.
EMBEDDED = re.compile(r'echo "([A-Za-z0-9+/=]+)" \| base64 -d > ([\w.-]+\.sh)')


def embedded_scripts(script: str) -> list[tuple[str, str]]:
    out = []
    for m in EMBEDDED.finditer(script):
        try:
            out.append((m.group(2), base64.b64decode(m.group(1)).decode("utf-8", "replace")))
        except ValueError:
            continue
    return out


def bash_syntax_errors(scripts: Sequence[str]) -> list[tuple[int, str]]:
    """`bash -n` on each rendered script and on the shell files it embeds."""
    errors: list[tuple[int, str]] = []
    bash = shutil.which("bash")
    if bash is None:
        return errors
    with tempfile.TemporaryDirectory(prefix="evalkit-render-") as tmp:
        for i, script in enumerate(scripts):
            parts = [(f"script{i}", script)]
            parts += [(f"script{i}/{name}", body) for name, body in embedded_scripts(script)]
            for label, body in parts:
                path = Path(tmp) / "check.sh"
                path.write_text(body, encoding="utf-8")
                proc = subprocess.run([bash, "-n", str(path)], capture_output=True, text=True)
                if proc.returncode != 0:
                    first = (proc.stderr.strip().splitlines() or ["syntax error"])[0]
                    errors.append((i, first.replace(str(path), label)))
    return errors


def dry_run(
    config: str, overrides: Sequence[str], nel: str | None, timeout: float = 600
) -> LauncherResult:
    command = find_nel(nel) + ["run", "--config", str(Path(config).resolve()), "--dry-run"]
    for item in overrides:
        command += ["-o", item]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return LauncherResult(command, 124, "", f"launcher dry-run timed out after {timeout:.0f} s")
    except OSError as err:
        raise UsageError(f"cannot run the launcher: {err}") from None
    result = LauncherResult(command, proc.returncode, proc.stdout, proc.stderr)
    if proc.returncode == 0:
        result.scripts = rendered_scripts(proc.stdout)
        result.syntax_errors = bash_syntax_errors(result.scripts)
    return result
