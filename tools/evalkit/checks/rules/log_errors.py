"""No Traceback, OOM or Killed line in the task's logs.

## What it does
Reads every log under the task's `logs/` (client, server and the others) for Traceback,
out-of-memory and Killed lines and quotes the first few. On a growing run, once a client
or server log exists.

## Why is this bad
Severity: warning: a retried or recovered error leaves the score valid, but it must be
read and explained before the score is quoted. A task with no `logs/` is a warning too.
On a run that stopped (`evalkit status`), such a line marks the task failed.

## Example
`2 Traceback/OOM/Killed line(s) in the logs; read them before quoting the score:
server-0.log:812: torch.OutOfMemoryError: CUDA out of memory`.

## Fix
Read the quoted lines; if the error lost samples, the count checks say so.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import Check, passed, warned
from evalkit.checks.rule import Rule
from evalkit.checks.rules._quote import quote
from evalkit.runs.logscan import LogScan

ID = "log-errors"


def check_log_errors(logs: Sequence[LogScan]) -> Check:
    total, shown = quote(logs, "errors")
    if total:
        return warned(
            ID,
            f"{total} Traceback/OOM/Killed line(s) in the logs; read them before quoting "
            f"the score: {shown}",
        )
    if not logs:
        return warned(ID, "no logs/ directory to scan")
    return passed(ID, f"no Traceback, OOM or Killed in {len(logs)} log file(s)")


def judge(ev: Evidence) -> Check | None:
    if ev.growing and not (ev.client or ev.server):
        return None
    return check_log_errors(ev.logs)


RULE = Rule(ID, "no errors in the logs", judge, __doc__ or "")
