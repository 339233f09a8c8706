"""The invocation a task run belongs to, and its job id: the one reader every command uses.

nel 0.2.6 writes `NEL_INVOCATION_ID="<16 hex>"` near the top of each task's script
(nemo-evaluator-launcher 0.2.6: executors/slurm/executor.py:705 for run.sub,
executors/local/run.template.sh:17 for run.sh) and names the invocation directory
`<YYYYmmdd_HHMMSS>-<invocation id>` (executor.py:111, `get_timestamp_string` and
`secrets.token_hex(8)` in common/execdb.py). The job id of task `<task>.<n>` is
`<invocation id>.<n>` (executor.py:125-129, `get_unique_task_name` in common/helpers.py),
the form `nel kill` takes for one job (cli/kill.py).

run.sub also records the task directory it was written for, on the cluster: `TASK_DIR=
"<output_dir>/<invocation dir>/<task>.<n>"` (executor.py:704) and `#SBATCH --output
<that dir>/logs/slurm-%A.log` (executor.py:702). So a task directory copied on its own,
under any name (`run/`), keeps its invocation id and its index; the directory names are
the fallback, matched whole: a folder named `eval-20261130` or with a shorter hex tail
names no invocation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import open_binary

INVOCATION_DIR = re.compile(r"^\d{8}_\d{6}-([0-9a-f]{16})$")
_SCRIPT_LINE = re.compile(rb'^NEL_INVOCATION_ID="([0-9a-f]{16})"[ \t]*\r?$', re.MULTILINE)
_TASK_DIR_LINE = re.compile(rb'^TASK_DIR="([^"\r\n]{1,4096})"[ \t]*\r?$', re.MULTILINE)
_OUTPUT_LINE = re.compile(
    rb"^#SBATCH --output ([^\s\"']{1,4096})/logs/slurm-%A\.log[ \t]*\r?$", re.MULTILINE
)
_TASK_INDEX = re.compile(r"\.(\d{1,6})$")
SCRIPTS = ("run.sub", "run.sh")
# The lines sit in or just after the #SBATCH header (about 1 KB); a hostile script is read
# no further.
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class Recorded:
    """What a task's own script says about where it ran."""

    invocation: str | None = None  # NEL_INVOCATION_ID
    task_dir: str | None = None  # the task directory on the cluster (TASK_DIR, --output)


def _head(path: Path) -> bytes | None:
    try:
        with open_binary(path) as handle:
            return handle.read(HEAD_BYTES)
    except (InputError, OSError):
        return None  # an unreadable script names nothing; the directory name may


def recorded(task_dir: str | Path) -> Recorded:
    """The invocation id and the cluster task directory TASK_DIR's script records."""
    task_dir = Path(task_dir)
    invocation = where = None
    for name in SCRIPTS:
        path = task_dir / name
        head = _head(path) if path.is_file() else None
        if head is None:
            continue
        if invocation is None and (match := _SCRIPT_LINE.search(head)):
            invocation = match.group(1).decode("ascii")
        if where is None:
            match = _TASK_DIR_LINE.search(head) or _OUTPUT_LINE.search(head)
            if match:
                where = match.group(1).decode("utf-8", "replace").rstrip("/")
    return Recorded(invocation, where)


def _recorded_parts(script: Recorded) -> tuple[str, str]:
    """(invocation directory name, task directory name) of the path the script records."""
    if not script.task_dir:
        return "", ""
    parts = script.task_dir.rsplit("/", 2)
    return (parts[-2] if len(parts) > 1 else ""), parts[-1]


def invocation_id(task_dir: str | Path) -> str | None:
    """The invocation id of the task run in TASK_DIR: its script's NEL_INVOCATION_ID, else
    the invocation directory its script records, else its own invocation directory's name
    (the task directory's parent, or the directory itself for a run given as its
    artifacts), else None."""
    task_dir = Path(task_dir)
    script = recorded(task_dir)
    if script.invocation:
        return script.invocation
    for name in (_recorded_parts(script)[0], task_dir.parent.name, task_dir.name):
        match = INVOCATION_DIR.match(name)
        if match:
            return match.group(1)
    return None


def task_index(task_dir: str | Path) -> int | None:
    """The `<n>` of task directory `<task>.<n>`: from the path its script records, else
    from the directory's own name; None when neither ends so."""
    task_dir = Path(task_dir)
    for name in (_recorded_parts(recorded(task_dir))[1], task_dir.name):
        match = _TASK_INDEX.search(name)
        if match:
            return int(match.group(1))
    return None


def job_id(task_dir: str | Path, invocation: str | None) -> str | None:
    """`<invocation id>.<n>` for task `<task>.<n>`, or None when either is unknown (no id
    is guessed)."""
    index = task_index(task_dir)
    if invocation is None or index is None:
        return None
    return f"{invocation}.{index}"


# Placeholders are plain words: pasted unfilled they fail as an unknown id, never as a
# redirection (`<invocation id>` would be two).
INVOCATION_PLACEHOLDER = "INVOCATION_ID"
JOB_PLACEHOLDER = "JOB_ID"
_FIND_INVOCATION = (
    "INVOCATION_ID is the 16-hex id `nel run` printed: `nel ls runs` on the machine that ran "
    "it lists them, and the run's directory on the cluster ends in it "
    "(`<YYYYmmdd_HHMMSS>-<id>`)"
)
_FIND_INDEX = (
    "JOB_ID is `<invocation id>.<n>`, <n> ending the task's directory on the cluster (`<task>.<n>`)"
)


def job_label(task_dir: str | Path, invocation: str | None) -> str:
    """The job id of the task in TASK_DIR, or a placeholder naming the part not known."""
    index = task_index(task_dir)
    if index is None:
        return JOB_PLACEHOLDER
    return f"{invocation or INVOCATION_PLACEHOLDER}.{index}"


def id_hint(label: str) -> str | None:
    """Where to find what a placeholder in LABEL stands for (neither run.sub nor the
    directory names said), or None when LABEL is a whole id."""
    if label == JOB_PLACEHOLDER:
        return f"run.sub here names no task directory: {_FIND_INDEX}; {_FIND_INVOCATION}"
    if label.split(".", 1)[0] == INVOCATION_PLACEHOLDER:
        return f"run.sub here names no invocation: {_FIND_INVOCATION}"
    return None
