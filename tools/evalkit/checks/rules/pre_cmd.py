"""The client's pre-command installed what the tokenizer needs.

## What it does
Reads `logs/client-*.log` for `ModuleNotFoundError` and a failing `tiktoken` install (a
healthy `uv pip install` line naming tiktoken does not count). Any task with a client
log; on a growing run as soon as the line is written.

## Why is this bad
Severity: fail (`invalid`): a missing tokenizer package changes which rows are kept, so
the item set is not the benchmark's.

## Example
`1 pre_cmd failure line(s) in the client log: client-77.log:3: ModuleNotFoundError: No
module named 'tiktoken'`.

## Fix
Kill the job, make the pre-command install the package (or use an image with it), and
relaunch.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed
from evalkit.checks.rule import Rule
from evalkit.checks.rules._quote import log_reported, quote
from evalkit.runs.logscan import LogScan

ID = "pre-cmd"


def check_pre_cmd(client_logs: Sequence[LogScan]) -> Check:
    total, shown = quote(client_logs, "pre_cmd")
    if total:
        return failed(
            ID,
            INVALID,
            f"{total} pre_cmd failure line(s) in the client log (missing tokenizer "
            f"packages change which rows are kept): {shown}",
        )
    return passed(ID, "no ModuleNotFoundError or tiktoken failure in the client log")


def judge(ev: Evidence) -> Check | None:
    return check_pre_cmd(ev.client) if log_reported(ev, ev.client) else None


RULE = Rule(ID, "pre-command clean", judge, __doc__ or "")
