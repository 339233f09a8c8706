"""vLLM refused to start: the reasoning parser named is not one it registers.

## What it does
Finds what vLLM prints for `--reasoning-parser NAME` when it registers no parser NAME
and picks the registered parser closest to NAME. vLLM 0.26.0 raises it from the parser
registry, `KeyError: "Reasoning parser 'NAME' not found. Available parsers: a, b, ..."`
(vllm/reasoning/abs_reasoning_parsers.py:245), or from the API server's parser manager,
`TypeError: reasoning_parser_name='NAME' has not been registered`
(vllm/parser/parser_manager.py:72). Its API-server check `invalid reasoning parser: NAME
(chose from { a,b,... })` (vllm/entrypoints/openai/api_server.py:610) fires only for a
parser set inside `--structured-outputs-config`.

## Why is this bad
The server exits at startup; every resubmission of the same config fails the same way.

## Fix
Set `--reasoning-parser` to a parser the image's vLLM registers (the message lists
them; a parser shipped as a file needs `--reasoning-parser-plugin FILE` too), or drop
the flag for a model that does not reason.
"""

from __future__ import annotations

import difflib
import re

from evalkit.checks.failures.model import RELAUNCH, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules._common import flag_change

ID = "vllm-unknown-reasoning-parser"


def registered(hit: Hit) -> list[str]:
    return [p.strip() for p in hit.groups.get("choices", "").split(",") if p.strip()]


def closest(name: str, choices: list[str]) -> str | None:
    """The registered parser nearest to NAME: a shared family prefix first (nemotron_nano
    -> nemotron_v3), else the closest spelling."""
    if not choices:
        return None
    head = re.split(r"[_\-.]", name.lower())[0]
    family = [c for c in choices if c.lower().startswith(head)] if head else []
    pool = family or choices
    best = difflib.get_close_matches(name.lower(), pool, n=1, cutoff=0.0)
    return best[0] if best else None


def _fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    name = hit.groups.get("name", "")
    choices = registered(hit) or facts.registered_parsers
    best = closest(name, choices)
    if best is None:
        return [flag_change("--reasoning-parser", "<a registered parser>", "none listed")]
    return [
        flag_change(
            "--reasoning-parser",
            best,
            f"the registered parser closest to {name!r} (vLLM lists {len(choices)}); check it "
            "is the model's own parser",
        )
    ]


def _cause(hit: Hit, facts: TaskFacts) -> str:
    return (
        f"vLLM does not register the reasoning parser {hit.groups.get('name', '')!r}, so "
        "the server exited at startup"
    )


RULE = FailureRule(
    id=ID,
    name="unknown reasoning parser",
    doc=__doc__,
    source=Source("vllm", "0.26.0", "vllm/reasoning/abs_reasoning_parsers.py", 245),
    needle=("Reasoning parser '", "reasoning_parser_name=", "invalid reasoning parser"),
    pattern=re.compile(
        r"Reasoning parser '(?P<name>[^'\s]{1,100})' not found\. "
        r"Available parsers: (?P<choices>[\w, .-]{0,4000})"
    ),
    wordings=(
        re.compile(r"reasoning_parser_name='(?P<name>[^'\s]{1,100})' has not been registered"),
        re.compile(
            r"invalid reasoning parser: (?P<name>\S{1,100}) "
            r"\(chose from \{ ?(?P<choices>[^}]{0,4000})\}"
        ),
    ),
    logs=("server-",),
    resubmit=False,
    next=RELAUNCH,
    fix=_fix,
    cause=_cause,
    covers=(
        Source("vllm", "0.19.1", "vllm/reasoning/abs_reasoning_parsers.py", 204),
        Source("vllm", "0.33.0", "vllm/reasoning/abs_reasoning_parsers.py", 257),
        Source("vllm", "0.19.1", "vllm/parser/parser_manager.py", 237),
        Source("vllm", "0.26.0", "vllm/parser/parser_manager.py", 72),
        Source("vllm", "0.33.0", "vllm/parser/parser_manager.py", 71),
        Source("vllm", "0.26.0", "vllm/entrypoints/openai/api_server.py", 610),
        Source("vllm", "0.33.0", "vllm/entrypoints/common/cli_args.py", 630),
    ),
    rank=10,
)
