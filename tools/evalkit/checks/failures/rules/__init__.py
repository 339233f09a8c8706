"""The failure signatures, one module a cause; RULES in the order the docs list them."""

from __future__ import annotations

from evalkit.checks.failures.model import FailureRule
from evalkit.checks.failures.rules import (
    health_check_timeout,
    model_not_found,
    slurm_time_limit,
    vllm_kv_cache,
    vllm_reasoning_parser,
)

RULES: tuple[FailureRule, ...] = tuple(
    m.RULE
    for m in (
        vllm_kv_cache,
        vllm_reasoning_parser,
        health_check_timeout,
        model_not_found,
        slurm_time_limit,
    )
)
BY_ID = {r.id: r for r in RULES}
