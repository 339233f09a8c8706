"""The client rarely had to retry a request to the model server.

## What it does
Reads `logs/client-*.log` for Gym's `[request_retry ...]`, `Hit an exception while making
a request`, `ClientResponseError` and `Caught an exception printed above` (NeMo Gym
`nemo_gym/server_utils.py` at the pin). Any task with a client log.

## Why is this bad
Severity: warning. Gym retries the request, so the score stands; many retries mean the
model server was overloaded or restarting, which wastes GPU hours.

## Example
`12 request retry / HTTP error line(s) in the client log (...): client-77.log:40: ...`.

## Fix
Read the quoted lines and the server log; lower the parallelism if the server is
overloaded.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import Check, passed, warned
from evalkit.checks.rule import Rule
from evalkit.checks.rules._quote import log_reported, quote
from evalkit.runs.logscan import LogScan

ID = "http-retries"


def check_http_retries(client_logs: Sequence[LogScan]) -> Check:
    total, shown = quote(client_logs, "retries")
    if total:
        return warned(
            ID,
            f"{total} request retry / HTTP error line(s) in the client log (Gym retries "
            f"them; many mean the model server is overloaded or restarting): {shown}",
        )
    if not client_logs:
        return passed(ID, "no client log to scan")
    return passed(ID, "no request retries or HTTP errors in the client log")


def judge(ev: Evidence) -> Check | None:
    return check_http_retries(ev.client) if log_reported(ev, ev.client) else None


RULE = Rule(ID, "few request retries", judge, __doc__ or "")
