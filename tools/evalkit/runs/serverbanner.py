"""What a vLLM server says about how it serves: its version, the context length and the
reasoning parser, from the start-up lines of its log and from the `vllm serve` command.

The start-up lines, read from the vLLM 0.26.0 wheel (the templates' image):
- `vllm/entrypoints/serve/utils/api_utils.py:323-345` `log_version_and_model`: `vLLM
  server version %s, serving model %s` with the logo switched off (VLLM_DISABLE_LOG_LOGO)
  or no vLLM formatter, else a four-line logo whose second line ends `version <v>` and
  third `model   <m>` (ANSI colours only on a terminal); `vllm/logging_utils/formatter.py:
  71-74` repeats the log prefix on every line of a multi-line message.
- `api_utils.py:271-273` `log_non_default_args`: `non-default args: <dict repr>`, e.g.
  `{'max_model_len': 1100000, 'reasoning_parser': 'nemotron_v3', ...}`.
- `vllm/v1/engine/core.py:116-120`: `Initializing a V1 LLM engine (v<version>) with
  config: model=..., max_seq_len=<n>, ..., structured_outputs_config=
  StructuredOutputsConfig(..., reasoning_parser='<p>', ...)` (`vllm/config/vllm.py:2090`).
- `vllm/config/model.py:1788`: `Using max model len <n>` (the length the engine settled on).
Older servers (vLLM 0.6 to 0.10, `vllm/entrypoints/openai/api_server.py` `run_server`)
printed `vLLM API server version <v>`; it is accepted too.

Only the start-up is read: the scan stops at the first stats line (evalkit.runs.serverlog)
or after MAX_BANNER_LINES, so an hours-long log costs no more than its first minutes.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from evalkit.runs.serverlog import STATS_MARK

MAX_BANNER_LINES = 20_000
_WORDS = ("vLLM", "version", "model len", "non-default", "LLM engine")
_ANSI = re.compile(r"\x1b\[[0-9;]{0,16}m")
_VERSION = (
    re.compile(r"vLLM server version (\S{1,64}), serving model"),
    re.compile(r"vLLM API server version (\S{1,64})"),
    re.compile(r"\u2588 {1,8}version {1,8}(\S{1,64})"),  # the logo's second line
    re.compile(r"Initializing a V1 LLM engine \(v([^)\s]{1,64})\)"),
)
# Each fact after its marker, searched in a bounded window after the marker's first
# occurrence: linear in the line, whatever it repeats.
_AFTER = 65536
_LEN_KEYS = (  # (marker, pattern, whether the value follows the marker at once)
    ("Using max model len ", re.compile(r"(\d{1,12})"), True),
    ("Initializing a V1 LLM engine ", re.compile(r"\bmax_seq_len=(\d{1,12})"), False),
    ("non-default args: ", re.compile(r"'max_model_len': (\d{1,12})"), False),
)
_PARSER_KEYS = (
    ("non-default args: ", re.compile(r"'reasoning_parser': '([^']{0,128})'"), False),
    ("Initializing a V1 LLM engine ", re.compile(r"\breasoning_parser='([^']{0,128})'"), False),
)


@dataclass
class Found:
    """One fact and the line it was read from (1-based; 0 = not from a line)."""

    value: str | int
    line: int


@dataclass
class ServerFacts:
    """What one server log or one serve command says; None = not said."""

    version: Found | None = None
    served_model: Found | None = None  # --served-model-name (the log names the path)
    max_model_len: Found | None = None
    reasoning_parser: Found | None = None
    reasoning_parser_plugin: Found | None = None
    chat_template_kwargs: Found | None = None  # --default-chat-template-kwargs, as written
    extra: dict[str, Found] = field(default_factory=dict)


def _first(patterns: tuple[re.Pattern, ...], line: str) -> str | None:
    for pattern in patterns:
        match = pattern.search(line)
        if match:
            return match.group(1)
    return None


def _after(keys: tuple[tuple[str, re.Pattern, bool], ...], line: str) -> str | None:
    """The first key's value found in the window after its marker."""
    for marker, pattern, at_once in keys:
        at = line.find(marker)
        if at < 0:
            continue
        start = at + len(marker)
        if at_once:
            match = pattern.match(line, start)
        else:
            match = pattern.search(line, start, start + _AFTER)
        if match:
            return match.group(1)
    return None


def read_banner(lines: Iterable[str]) -> ServerFacts:
    """The start-up facts of one vLLM server log, given as lines (first found wins, except
    the context length: the engine's own `Using max model len` beats the arguments)."""
    facts = ServerFacts()
    for line_no, raw in enumerate(lines, start=1):
        if line_no > MAX_BANNER_LINES or STATS_MARK in raw:
            break
        if not any(word in raw for word in _WORDS):
            continue  # most start-up lines say none of these: skip the regexes
        line = _ANSI.sub("", raw) if "\x1b" in raw else raw
        if facts.version is None and (version := _first(_VERSION, line)):
            facts.version = Found(version, line_no)
        length = _after(_LEN_KEYS, line)
        if length and (facts.max_model_len is None or "Using max model len" in line):
            facts.max_model_len = Found(int(length), line_no)
        if facts.reasoning_parser is None and (parser := _after(_PARSER_KEYS, line)) is not None:
            facts.reasoning_parser = Found(parser or "none", line_no)  # '': no parser
    return facts


# -- the serve command ----------------------------------------------------------------------
_FLAGS = {
    "--max-model-len": "max_model_len",
    "--reasoning-parser": "reasoning_parser",
    "--reasoning-parser-plugin": "reasoning_parser_plugin",
    "--default-chat-template-kwargs": "chat_template_kwargs",
    "--served-model-name": "served_model",
}


def _tokens(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False)
    except ValueError:  # an unbalanced quote: the words as they stand
        return command.split()


def read_serve_command(command: str, line: int = 0) -> ServerFacts:
    """The flags of a `vllm serve` command that shape the answers (argparse spellings:
    `--flag value`, `--flag=value`, underscores for dashes; the last one given wins, as
    argparse lets it)."""
    facts = ServerFacts()
    words = _tokens(command)
    for index, word in enumerate(words):
        if not word.startswith("--"):
            continue
        name, sep, value = word.partition("=")
        name = name.replace("_", "-")
        slot = _FLAGS.get(name)
        if slot is None:
            continue
        if not sep:
            if index + 1 >= len(words) or words[index + 1].startswith("--"):
                continue
            value = words[index + 1]
        if slot == "max_model_len":
            number = _context_length(value)
            if number is None:
                continue
            setattr(facts, slot, Found(number, line))
        else:
            setattr(facts, slot, Found(value, line))
    return facts


_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _context_length(text: str) -> int | None:
    """`131072`, `25.6k` (x1000) or `128K` (x1024, no decimals), as vLLM 0.26.0's
    `human_readable_int` reads them (vllm/utils/argparse_utils.py:29-72); `-1`/`auto`
    (let the model decide) and anything else: not read."""
    match = re.fullmatch(r"(\d{1,12}(?:\.\d{1,6})?)([kKmMgGtT]?)", text.strip())
    if not match:
        return None
    number, suffix = match.groups()
    if suffix in _DECIMAL:
        return int(float(number) * _DECIMAL[suffix])
    if "." in number:
        return None  # vLLM refuses decimals without a suffix or with a binary one
    return int(number) * _BINARY.get(suffix, 1)


__all__ = ["Found", "ServerFacts", "read_banner", "read_serve_command"]
