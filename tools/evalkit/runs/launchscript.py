"""What run.sub says about a task run's containers and its server, line by line.

nel 0.2.6's slurm executor (`executors/slurm/executor.py`, rendered by `nel run
--dry-run`) writes one `srun ... --container-image <image> ... --output
<task dir>/logs/<name>-%A...log ...` line per container: `server-${g}-%A-%t.log` for each
deployment instance, `proxy-%A.log` for haproxy, `client-%A.log` for the evaluation, and
`<aux>-server-...` for auxiliary services. The deployment's srun line carries the serve
command base64-encoded (`echo "<b64>" | base64 -d > deployment_cmd.sh`); the launcher
also echoes it as a `#` comment, but the encoded copy is the one the job ran.

No log names an image's digest: pyxis prints `pyxis: imported docker image: %s` with the
reference as given (NVIDIA/pyxis, `pyxis_slurmstepd.c`), so a digest is known only where
the reference pins one (`image@sha256:...`).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import iter_log_lines

_IMAGE = re.compile(r"--container-image[= ]+\"?([^\s\"']{1,1024})")
_OUTPUT = re.compile(r"--output[= ]+\"?[^\s\"']{0,4096}?/logs/([A-Za-z0-9_.-]{1,128}?)-(?:\$|%)")
_DEPLOY_CMD = re.compile(r'echo "([A-Za-z0-9+/=]{8,})" \| base64 -d > deployment_cmd\.sh')
_DIGEST = re.compile(r"@(sha256:[0-9a-f]{64})\b")
ROLES = {"server": "deployment", "client": "evaluation", "proxy": "proxy"}


@dataclass(frozen=True)
class Image:
    role: str  # deployment, evaluation, proxy, or an auxiliary service's log name
    ref: str  # as run.sub names it
    digest: str | None  # sha256:..., when the reference pins one
    line: int


@dataclass
class LaunchScript:
    path: Path
    images: list[Image] = field(default_factory=list)
    serve_command: tuple[str, int] | None = None  # (decoded deployment_cmd.sh, run.sub line)
    checkpoint: tuple[str, int] | None = None  # (mount source of /checkpoint, line)


def image_digest(ref: str) -> str | None:
    match = _DIGEST.search(ref)
    return match.group(1) if match else None


def read_launch_script(path: Path) -> LaunchScript | None:
    """The containers and serve command run.sub names; None when there is no run.sub or it
    cannot be read (a fingerprint reports blanks, it does not fail the command)."""
    from evalkit.runs.run import checkpoint_mount

    if not path.is_file():
        return None
    script = LaunchScript(path)
    seen: set[tuple[str, str]] = set()
    try:
        for line_no, line in enumerate(iter_log_lines(path), start=1):
            if line.lstrip().startswith("#") or "--container-image" not in line:
                continue
            image = _IMAGE.search(line)
            output = _OUTPUT.search(line)
            if image is None:
                continue
            name = output.group(1) if output else "unknown"
            role = ROLES.get(name, name)
            ref = image.group(1)
            if (role, ref) not in seen:
                seen.add((role, ref))
                script.images.append(Image(role, ref, image_digest(ref), line_no))
            if role == "deployment":
                if script.checkpoint is None and (source := checkpoint_mount(line)):
                    script.checkpoint = (source, line_no)
                if script.serve_command is None and (encoded := _DEPLOY_CMD.search(line)):
                    command = _decode(encoded.group(1))
                    if command is not None:
                        script.serve_command = (command, line_no)
    except InputError:
        return None
    return script


def _decode(blob: str) -> str | None:
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


__all__ = ["Image", "LaunchScript", "image_digest", "read_launch_script"]
