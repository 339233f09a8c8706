"""What several rules share: the vLLM flag as a config change, sizes in GiB."""

from __future__ import annotations

import math

from evalkit.checks.failures.model import Change, TaskFacts

VLLM_KEY = "deployment.extra_args"  # nel 0.2.6 deployment/vllm appends it to `vllm serve`


def flag_change(flag: str, value: str, why: str) -> Change:
    """The vLLM flag's new value, set where the config writes the `vllm serve` flags."""
    return Change(VLLM_KEY, f"{flag} {value}".strip(), f"{why}; or in deployment.command")


def doubled_tp(facts: TaskFacts) -> Change:
    tp = _int(facts.vllm_args.get("--tensor-parallel-size")) or 1
    per_node = facts.gpus_per_node or 8
    new = tp * 2
    where = f" on {math.ceil(new / per_node)} node(s)" if new > per_node else ""
    return Change(
        "deployment.tensor_parallel_size",
        str(new),
        f"twice {tp}: the weights and KV cache spread over {new} GPUs{where}; "
        "`evalkit size` gives the exact topology for the context",
    )


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
