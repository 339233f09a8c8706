"""SLURM's own view of the jobs, as a user pastes it: `sacct` (parsable, `-P`, or the
default table) and `squeue` (the default table).

Formats (Slurm's sacct(1) and squeue(1) manual pages): `sacct -P` joins the fields with
`|`, the first line naming them (none with `-n`, then the order is taken to be
`JobID|State|ExitCode|Elapsed`, the one this skill asks for); the default sacct table
has a header, a line of dashes whose runs give each column's width, then fixed-width
rows, a value cut to the width ending in `+` (`4100001.ba+`, `CANCELLED+`). squeue's
default table is `JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)`, a pending
job's reason in parentheses. A state may carry a tail (`CANCELLED by 1000`).

Every reader is bounded (evalkit.inputs.read_bytes); a line that fits none of these is
an InputError naming the file and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import decode_text, read_bytes

MAX_BYTES = 16 * 1024 * 1024
DEFAULT_P_FIELDS = ("JobID", "State", "ExitCode", "Elapsed")
# sacct(1) JOB STATE CODES, and squeue(1)'s compact codes for them.
STATES = {
    "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY",
    "PENDING", "PREEMPTED", "RUNNING", "REQUEUED", "RESIZING", "REVOKED", "SUSPENDED",
    "TIMEOUT", "COMPLETING", "CONFIGURING", "STOPPED", "SPECIAL_EXIT",
}  # fmt: skip
SQUEUE_CODES = {
    "PD": "PENDING", "R": "RUNNING", "CG": "COMPLETING", "CD": "COMPLETED", "F": "FAILED",
    "TO": "TIMEOUT", "NF": "NODE_FAIL", "PR": "PREEMPTED", "OOM": "OUT_OF_MEMORY",
    "CA": "CANCELLED", "S": "SUSPENDED", "CF": "CONFIGURING", "BF": "BOOT_FAIL",
    "DL": "DEADLINE", "RQ": "REQUEUED", "ST": "STOPPED", "SE": "SPECIAL_EXIT",
}  # fmt: skip
_JOB_ID = re.compile(r"^(\d+)(?:_\d+)?(?:\.(\S+))?$")
_EXIT = re.compile(r"^\d+:\d+$")


@dataclass(frozen=True)
class SlurmRow:
    job: str  # the job id (an array task's _N dropped)
    step: str | None  # batch, extern, 0, ... (None: the job's own row)
    state: str  # as written, e.g. "CANCELLED by 1000"
    exit_code: str | None
    elapsed: str | None
    reason: str | None  # squeue's NODELIST(REASON) for a pending job
    source: str  # "sacct" | "squeue"
    file: str
    line: int

    @property
    def base_state(self) -> str:
        """The state's code, a value cut by the table's width (OUT_OF_ME+) completed."""
        word = (self.state.split()[0] if self.state else "").rstrip("+")
        if word in STATES:
            return word
        whole = [s for s in STATES if s.startswith(word)]
        return whole[0] if len(whole) == 1 else word


def _lines(path: Path) -> list[tuple[int, str]]:
    text = decode_text(read_bytes(path, limit=MAX_BYTES), path)
    return [(n, line.rstrip("\r\n")) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _bad(path: Path, line: int, what: str) -> InputError:
    return InputError(f"{path}:{line}: {what}")


def _job(path: Path, line: int, value: str) -> tuple[str, str | None]:
    match = _JOB_ID.match(value.rstrip("+"))
    if not match:
        raise _bad(path, line, f"not a Slurm job id: {value[:60]!r}")
    return match.group(1), match.group(2)


def _state(path: Path, line: int, value: str, codes: bool = False) -> str:
    state = SQUEUE_CODES.get(value, value) if codes else value
    word = state.split()[0].rstrip("+") if state else ""
    if not any(s.startswith(word) for s in STATES) or not word:
        raise _bad(path, line, f"not a Slurm job state: {value[:60]!r}")
    return state


def _row(path, line, fields: dict[str, str], source: str, codes: bool = False) -> SlurmRow:
    job, step = _job(path, line, fields.get("jobid", ""))
    exit_code = fields.get("exitcode") or None
    if exit_code is not None and not _EXIT.match(exit_code):
        raise _bad(path, line, f"not a Slurm exit code (N:M): {exit_code[:60]!r}")
    state = _state(path, line, fields.get("state", fields.get("st", "")), codes)
    reason = fields.get("nodelist(reason)")
    reason = reason[1:-1] if reason and reason.startswith("(") and reason.endswith(")") else None
    return SlurmRow(
        job, step, state, exit_code, fields.get("elapsed") or fields.get("time"), reason,
        source, path.name, line,
    )  # fmt: skip


def _parsable(path: Path, lines: list[tuple[int, str]]) -> list[SlurmRow]:
    first = lines[0][1].split("|")
    has_header = any(f.strip().lower() == "jobid" for f in first)
    names = (
        [f.strip().lower() for f in first] if has_header else [f.lower() for f in DEFAULT_P_FIELDS]
    )
    body = lines[1:] if has_header else lines
    if "jobid" not in names or "state" not in names:
        raise _bad(path, lines[0][0], "sacct -P output needs the JobID and State fields")
    rows = []
    for n, line in body:
        values = line.split("|")
        if values and values[-1] == "" and len(values) == len(names) + 1:
            values = values[:-1]  # `-p` (not -P) ends each line with a |
        if len(values) != len(names):
            raise _bad(path, n, f"{len(values)} fields where the header has {len(names)}")
        rows.append(
            _row(path, n, dict(zip(names, (v.strip() for v in values), strict=True)), "sacct")
        )
    return rows


def _table(path: Path, lines: list[tuple[int, str]], source: str) -> list[SlurmRow]:
    header_no, header = lines[0]
    names = [h.lower() for h in header.split()]
    key = "st" if source == "squeue" else "state"
    if "jobid" not in names or (key not in names and "state" not in names):
        raise _bad(path, header_no, f"not a {source} table: no JOBID and STATE header")
    body = lines[1:]
    spans = None
    if body and set(body[0][1].replace(" ", "")) == {"-"}:
        spans = [m.span() for m in re.finditer(r"-+", body[0][1])]
        body = body[1:]
        if len(spans) != len(names):
            raise _bad(path, header_no + 1, "the dashes do not match the header's columns")
    rows = []
    for n, line in body:
        if spans:
            values = [line[a:b + 1].strip() for a, b in spans]  # fmt: skip
        else:
            values = line.split()
            if len(values) > len(names):  # a reason with spaces: the last column takes them
                values = values[: len(names) - 1] + [" ".join(values[len(names) - 1 :])]
        if len(values) != len(names):
            raise _bad(path, n, f"{len(values)} columns where the header has {len(names)}")
        rows.append(
            _row(path, n, dict(zip(names, values, strict=True)), source, source == "squeue")
        )
    return rows


def read_sacct(path: str | Path) -> list[SlurmRow]:
    path = Path(path)
    lines = _lines(path)
    if not lines:
        raise InputError(f"{path}: empty: no sacct rows")
    if "|" in lines[0][1]:
        return _parsable(path, lines)
    return _table(path, lines, "sacct")


def read_squeue(path: str | Path) -> list[SlurmRow]:
    path = Path(path)
    lines = _lines(path)
    if not lines:
        return []  # squeue prints only its header, or nothing, when no job is queued
    return _table(path, lines, "squeue")
