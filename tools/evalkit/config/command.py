"""Flags of a serving command (`deployment.command`), read the way the shell reads them.

Recognises `--flag N`, `--flag=N` and short aliases (`-tp N`), for vLLM, SGLang and
TensorRT-LLM spellings. A `#` that starts a word ends the command for bash, so flags
after it are not counted (that is the folded-scalar trap the rules report).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

ALIASES: dict[str, tuple[str, ...]] = {
    "tp": ("--tensor-parallel-size", "-tp", "--tp-size", "--tp", "--tp_size"),
    "pp": ("--pipeline-parallel-size", "-pp", "--pp-size", "--pp", "--pp_size"),
    "dp": ("--data-parallel-size", "-dp", "--dp-size", "--dp", "--dp_size"),
    "max_model_len": ("--max-model-len", "--context-length", "--max_seq_len"),
    "max_num_seqs": ("--max-num-seqs", "--max-running-requests", "--max_batch_size"),
    "kv_cache_dtype": ("--kv-cache-dtype",),
    "gpu_memory_utilization": ("--gpu-memory-utilization", "--mem-fraction-static"),
    "max_num_batched_tokens": ("--max-num-batched-tokens",),
    "prefix_caching": ("--enable-prefix-caching",),
    "no_prefix_caching": ("--no-enable-prefix-caching",),
    "chunked_prefill": ("--enable-chunked-prefill",),
    "expert_parallel": ("--enable-expert-parallel", "-ep", "--enable-ep-moe"),
    "trust_remote_code": ("--trust-remote-code", "--trust_remote_code"),
    "quantization": ("--quantization",),
    "auto_tool_choice": ("--enable-auto-tool-choice",),
    "tool_call_parser": ("--tool-call-parser",),
}
BOOLEAN = {"prefix_caching", "no_prefix_caching", "chunked_prefill", "expert_parallel",
           "trust_remote_code", "auto_tool_choice"}  # fmt: skip

_SIZE = re.compile(r"(\d+(?:\.\d+)?)([kKmMgG]?)")


def parse_size(text: str | None) -> int | None:
    """vLLM's human-readable integers: k/m/g decimal, K/M/G binary ('1M' = 1048576)."""
    if text is None:
        return None
    m = _SIZE.fullmatch(text.strip())
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    scale = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}
    value = number * scale[unit]
    return int(value) if value == int(value) else None


def split_words(text: str) -> list[str]:
    """Shell words of a command, stopping where bash would start a comment."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to whitespace words
        words = text.split()
    out: list[str] = []
    for word in words:
        if word.startswith("#"):
            break
        out.append(word)
    return out


def resolved_command(cfg: Any) -> str:
    """`deployment.command` of a loaded config (evalkit.config.NelConfig) with every
    `${...}` resolved as the launcher resolves it before rendering the script
    (`${deployment.data_parallel_size}` -> `16`). Rules that read serving flags use this.
    """
    from evalkit.config.interpolation import resolve_full

    value = resolve_full(cfg.data, ("deployment", "command"))
    return "" if value is None else str(value)


def _inner_scripts(word: str) -> list[str]:
    """Words of a quoted script inside a word (`bash -c '... vllm serve --dp 16 ...'`)."""
    if not any(ch.isspace() for ch in word) or "-" not in word:
        return []
    words: list[str] = []
    for line in word.splitlines():
        words.extend(split_words(line.rstrip("\\")))
    return words


@dataclass
class ServeFlags:
    text: str
    words: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str | None) -> ServeFlags:
        text = text if isinstance(text, str) else ""
        # A multi-line script: read each line (its own comments end at its own newline).
        words: list[str] = []
        for line in text.splitlines() or [""]:
            for word in split_words(line.rstrip("\\")):
                # a script passed as one quoted word (`bash -c '...'`, the launcher's
                # multi-node DP example) carries the flags the server really gets
                inner = _inner_scripts(word)
                words.extend(inner if inner else [word])
        return cls(text=text, words=words)

    def raw(self, name: str) -> str | None:
        """Value of a valued flag (last occurrence wins, like argparse)."""
        found: str | None = None
        spellings = ALIASES[name]
        for i, word in enumerate(self.words):
            for flag in spellings:
                if word == flag and i + 1 < len(self.words):
                    found = self.words[i + 1]
                elif word.startswith(flag + "="):
                    found = word[len(flag) + 1 :]
        return found

    def has(self, name: str) -> bool:
        spellings = ALIASES[name]
        return any(w in spellings or w.split("=", 1)[0] in spellings for w in self.words)

    def integer(self, name: str) -> int | None:
        return parse_size(self.raw(name))

    def number(self, name: str) -> float | None:
        value = self.raw(name)
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None
