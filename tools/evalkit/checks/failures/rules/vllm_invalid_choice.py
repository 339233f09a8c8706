"""vLLM refused a command-line flag value: not one of the flag's choices.

## What it does
Finds argparse's `vllm serve: error: argument --FLAG: invalid choice: 'VALUE' (choose
from ...)` (vLLM 0.26.0, run here) and vLLM 0.33.0's config check `Invalid FIELD: 'VALUE'.
Valid values are: [...]` (--kv-cache-dtype, run here) in the server logs, and picks the
listed choice closest to VALUE.

## Why is this bad
`vllm serve` exits with status 2 before it loads anything; the same config fails the
same way every time.

## Fix
Set the flag to one of the choices the image's vLLM lists (`evalkit preflight` checks
the flags of the pinned vLLM before launch: NEL311/NEL312).
"""

from __future__ import annotations

import difflib
import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import flag_change

ID = "vllm-invalid-choice"


def _choices(hit: Hit) -> list[str]:
    return [c.strip(" '\"") for c in hit.groups.get("choices", "").split(",") if c.strip(" '\"")]


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    flag, value = hit.groups.get("flag", ""), hit.groups.get("value", "")
    if not flag and hit.groups.get("key"):  # the config's field name: its flag
        flag = "--" + hit.groups["key"].replace("_", "-")
    choices = _choices(hit)
    best = difflib.get_close_matches(value, choices, n=1, cutoff=0.0)
    return [
        flag_change(
            flag,
            best[0] if best else "<one of the choices>",
            f"the choice closest to {value!r} of the {len(choices)} vLLM lists",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"vllm serve rejected {hit.groups.get('flag') or hit.groups.get('key')} "
        f"{hit.groups.get('value')!r}: not one "
        "of its choices"
    )


RULE = FailureRule(
    id=ID,
    name="invalid flag choice",
    doc=__doc__,
    source=Source("cpython", "3.12", "Lib/argparse.py (ArgumentParser._check_value)"),
    needle=("invalid choice", "Valid values are: ["),
    pattern=re.compile(
        r"argument (?P<flag>--[\w-]{1,80}): invalid choice: '?(?P<value>[^'\s]{0,200})'? "
        r"\(choose from (?P<choices>[^)]{0,4000})\)"
    ),
    # vLLM 0.33 checks --kv-cache-dtype in its config (pydantic), not argparse (run here)
    wordings=(
        re.compile(
            r"Invalid (?P<key>\w{1,60}): '(?P<value>[^'\s]{0,200})'\. Valid values are: "
            r"\[(?P<choices>[^\]]{0,4000})\]"
        ),
    ),
    covers=(Source("vllm", "0.33.0", "config/cache.py (pydantic validator), run here"),),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    rank=10,
)
