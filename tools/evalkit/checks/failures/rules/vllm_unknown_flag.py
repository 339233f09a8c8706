"""vLLM refused a flag it does not have (`unrecognized arguments`).

## What it does
Finds argparse's `vllm: error: unrecognized arguments: ARGS` (as vLLM 0.26.0 prints it,
run here; `vllm serve: error:` in other versions) in the server logs
(CPython Lib/argparse.py parse_args; vLLM's `serve` parser is an argparse parser).

## Why is this bad
The image's vLLM has no such flag (renamed or removed between versions, or a typo): the
server exits before it starts, every time.

## Fix
Drop or rename the flag in `deployment.command` for the image's vLLM version
(`evalkit preflight` checks the flags against the version's own table).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import VLLM_KEY

ID = "vllm-unknown-flag"


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    args = hit.groups.get("args", "")
    return [Change(VLLM_KEY, f"without {args}", "the image's vLLM does not have it")]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return f"the image's vLLM has no flag {hit.groups.get('args', '')!r}, so it refused to start"


RULE = FailureRule(
    id=ID,
    name="unknown flag",
    doc=__doc__,
    source=Source("cpython", "3.12", "Lib/argparse.py (parse_args: unrecognized arguments)"),
    needle="error: unrecognized arguments: ",
    # vLLM 0.26's top-level parser reports it as `vllm: error: ...` (run here)
    pattern=re.compile(r"^vllm(?: serve)?: error: unrecognized arguments: (?P<args>.{1,300})"),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
)
