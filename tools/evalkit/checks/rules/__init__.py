"""The run checks, one rule per module, in the order validate reports them. A new check is
a module here with a `RULE` and a line in RULES; references/run-validation.md's table is
generated from the docstrings (`python -m evalkit.checks.docs`)."""

from __future__ import annotations

from evalkit.checks.rules import (
    aggregate_agreement,
    duplicates,
    gym_pin,
    gym_version,
    headline_agreement,
    http_retries,
    item_grading,
    item_outcomes,
    item_scale,
    log_errors,
    output_limit,
    pre_cmd,
    preemption,
    prefix_gate,
    results_file,
    rollout_count,
    score,
    truncation,
)

RULES = tuple(
    module.RULE
    for module in (
        rollout_count,
        duplicates,
        truncation,
        gym_pin,
        prefix_gate,
        results_file,
        score,
        output_limit,
        item_outcomes,
        item_scale,
        item_grading,
        headline_agreement,
        aggregate_agreement,
        pre_cmd,
        preemption,
        log_errors,
        http_retries,
        gym_version,
    )
)
CHECK_IDS = tuple(rule.id for rule in RULES)
