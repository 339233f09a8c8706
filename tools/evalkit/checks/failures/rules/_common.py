"""What several rules share: a vLLM flag as a config change, the doubled parallelism."""

from __future__ import annotations

import math

from evalkit.checks.failures.model import Change, TaskFacts

# The skill writes every vLLM flag in deployment.command (SKILL.md, gotchas: never
# deployment.extra_args), so a flag's change is an edit of that line.
VLLM_KEY = "deployment.command"


def flag_change(flag: str, value: str, why: str) -> Change:
    """The vLLM flag's new value in the `vllm serve` line."""
    return Change(VLLM_KEY, f"{flag} {value}".strip(), why)


def tp_change(facts: TaskFacts, new: int, why: str) -> Change:
    per_node = facts.gpus_per_node or 8
    if new > per_node:
        why += f"; {new} GPUs span {math.ceil(new / per_node)} nodes of {per_node}"
    return flag_change("--tensor-parallel-size", str(new), why + " (`evalkit size` checks it)")


def doubled_tp(facts: TaskFacts) -> Change:
    tp = _int(facts.vllm_args.get("--tensor-parallel-size")) or 1
    return tp_change(facts, tp * 2, f"twice {tp}: the weights spread over twice the GPUs")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
