"""The invocation a task run belongs to, and its job id: the one reader every command uses.

nel 0.2.6 writes `NEL_INVOCATION_ID="<16 hex>"` near the top of each task's script
(nemo-evaluator-launcher 0.2.6: executors/slurm/executor.py:705 for run.sub,
executors/local/run.template.sh:17 for run.sh) and names the invocation directory
`<YYYYmmdd_HHMMSS>-<invocation id>` (executor.py:111, `get_timestamp_string` and
`secrets.token_hex(8)` in common/execdb.py). The script is read first, so a task directory
copied on its own keeps its id; the directory name is the fallback, matched whole: a
folder named `eval-20261130` or with a shorter hex tail names no invocation.
The job id of task directory `<task>.<n>` is `<invocation id>.<n>` (executor.py:125,
`get_unique_task_name`), the form `nel kill` takes for one job (cli/kill.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import open_binary

INVOCATION_DIR = re.compile(r"^\d{8}_\d{6}-([0-9a-f]{16})$")
_SCRIPT_LINE = re.compile(rb'^NEL_INVOCATION_ID="([0-9a-f]{16})"[ \t]*\r?$', re.MULTILINE)
_TASK_INDEX = re.compile(r"\.(\d{1,6})$")
SCRIPTS = ("run.sub", "run.sh")
# The line sits after the #SBATCH header (about 1 KB); a hostile script is read no further.
HEAD_BYTES = 64 * 1024


def _script_id(task_dir: Path) -> str | None:
    for name in SCRIPTS:
        path = task_dir / name
        if not path.is_file():
            continue
        try:
            with open_binary(path) as handle:
                head = handle.read(HEAD_BYTES)
        except (InputError, OSError):
            continue  # an unreadable script names nothing; the directory name may
        match = _SCRIPT_LINE.search(head)
        if match:
            return match.group(1).decode("ascii")
    return None


def invocation_id(task_dir: str | Path) -> str | None:
    """The invocation id of the task run in TASK_DIR: its script's, else its invocation
    directory's name (the task directory's parent, or the directory itself for a run
    given as its artifacts), else None."""
    task_dir = Path(task_dir)
    found = _script_id(task_dir)
    if found:
        return found
    for directory in (task_dir.parent, task_dir):
        match = INVOCATION_DIR.match(directory.name)
        if match:
            return match.group(1)
    return None


def job_id(task_dir: str | Path, invocation: str | None) -> str | None:
    """`<invocation id>.<n>` for task directory `<task>.<n>`, or None when either is
    unknown (no id is guessed)."""
    match = _TASK_INDEX.search(Path(task_dir).name)
    if invocation is None or match is None:
        return None
    return f"{invocation}.{int(match.group(1))}"
