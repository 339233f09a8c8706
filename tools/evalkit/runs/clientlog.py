"""What the harness says in the client log about the generation settings it used.

lm-evaluation-harness logs, per task, the generation arguments after merging the task's
YAML with the command line's `--gen_kwargs` (`lm_eval/evaluator.py`, line 307 in the
nvidia-lm-eval 26.3 run of tests/data/outcomes/lm_eval.0):
`<task>: Using gen_kwargs: {'until': [], 'max_gen_toks': 64, 'temperature': 1e-07,
'top_p': 0.9999999}`. Those are the values the requests carried, so they win over the
config's. Only the start of the log is read (the line comes before the first request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import iter_log_lines

MAX_CLIENT_LINES = 20_000
MARKER = "Using gen_kwargs: {"
_WINDOW = 65536
_NUMBER = r"([-+]?(?:\d{1,12}(?:\.\d{0,17})?|\.\d{1,17})(?:[eE][-+]?\d{1,3})?)"
_KEYS = {
    "temperature": re.compile(r"'temperature': " + _NUMBER),
    "top_p": re.compile(r"'top_p': " + _NUMBER),
    "max_new_tokens": re.compile(r"'max_gen_toks': (\d{1,12})\b"),
}


@dataclass(frozen=True)
class GenKwargs:
    values: dict[str, float | int]
    log: str  # the client log's file name
    line: int


def read_gen_kwargs(logs_dir: Path | None) -> GenKwargs | None:
    """The first `Using gen_kwargs` line of logs/client-*.log, or None."""
    if logs_dir is None or not logs_dir.is_dir():
        return None
    for log in sorted(logs_dir.glob("client-*.log")):
        try:
            for line_no, line in enumerate(iter_log_lines(log), start=1):
                if line_no > MAX_CLIENT_LINES:
                    break
                at = line.find(MARKER)
                if at < 0:
                    continue
                window = line[at : at + _WINDOW]
                values: dict[str, float | int] = {}
                for key, pattern in _KEYS.items():
                    match = pattern.search(window)
                    if match:
                        text = match.group(1)
                        values[key] = int(text) if key == "max_new_tokens" else float(text)
                if values:
                    return GenKwargs(values, log.name, line_no)
        except InputError:
            continue
    return None


__all__ = ["GenKwargs", "read_gen_kwargs"]
