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


def size_command(facts: TaskFacts) -> str:
    """`evalkit size` with what the run's own run.sub says; DIR, G and P are the user's
    (the checkpoint's local copy, the GPU's memory, the client concurrency)."""
    parts = ["evalkit size --checkpoint DIR --gpu-mem-gib G --parallelism P"]
    parts.append(f"--gpus-per-node {facts.gpus_per_node or 8} --num-nodes {facts.nodes}")
    for flag in ("--max-model-len", "--kv-cache-dtype", "--gpu-memory-utilization"):
        value = facts.vllm_args.get(flag)
        if value and value.replace(".", "").replace("_", "").isalnum():
            parts.append(f"{flag} {value}")
    return " ".join(parts)


def tp_change(facts: TaskFacts, new: int, why: str) -> Change:
    per_node = facts.gpus_per_node or 8
    if new > per_node:
        why += f"; {new} GPUs span {math.ceil(new / per_node)} nodes of {per_node}"
    return flag_change("--tensor-parallel-size", str(new), f"{why}; check: {size_command(facts)}")


def sized_tp(facts: TaskFacts, max_model_len: int) -> Change | None:
    """The smallest tensor parallelism (a power of two, over the run's GPUs) at which
    evalkit's sizing model holds one request of MAX_MODEL_LEN tokens, as the flag to set;
    None without --checkpoint/--gpu-mem-gib, or when no TP up to the run's GPUs fits."""
    if facts.sizing is None:
        return None
    per_node = facts.gpus_per_node or 8
    util = facts.vllm_args.get("--gpu-memory-utilization") or "0.9"
    gpu_util = float(util) if util.replace(".", "", 1).isdigit() else 0.9
    kv_dtype = facts.vllm_args.get("--kv-cache-dtype") or "auto"
    tp = 1
    while tp <= per_node * max(1, facts.nodes):
        pool = facts.sizing(tp, max_model_len, per_node, kv_dtype, gpu_util)
        if pool is not None:
            why = (
                f"evalkit's sizing model: at TP {tp} each GPU keeps {pool:.1f} GiB for the KV "
                f"cache, enough for one {max_model_len}-token request"
            )
            return tp_change(facts, tp, why)
        tp *= 2
    return None


def doubled_tp(facts: TaskFacts) -> Change:
    tp = _int(facts.vllm_args.get("--tensor-parallel-size")) or 1
    return tp_change(facts, tp * 2, f"twice {tp}: the weights spread over twice the GPUs")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
