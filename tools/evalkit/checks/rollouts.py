"""Checks on what the rollouts file holds: count, duplicates, truncation, the prefix gate,
the output limit, and agreement with Gym's own aggregate."""

from __future__ import annotations

import math
from typing import Any

from evalkit.checks.model import (
    AGGREGATE_ABS_TOL,
    AGGREGATE_REL_TOL,
    INCOMPLETE,
    INVALID,
    LENGTH_INVALID_ABOVE,
    LENGTH_WARN_ABOVE,
    PASS,
    PREFIX_INVALID_BELOW,
    PREFIX_WARN_BELOW,
    WARN,
    Check,
    Expectation,
    failed,
    passed,
    warned,
)
from evalkit.runs.logscan import (  # noqa: F401  (status and tests read them from here)
    GYM_COMMIT_BANNER,
    MAX_HITS,
    SHA_PATTERN,
    LogScan,
    pre_cmd_failure,
    read_log,
    scan_log,
)


def check_rollout_count(found: int, expectation: Expectation | None) -> Check:
    cid = "rollout-count"
    if expectation is None:
        return warned(
            cid,
            f"{found} rollouts; expected count unknown (no MRCR variant in the run's config "
            "or rollouts); pass --expected N",
        )
    want = expectation.count
    if found < want:
        return failed(
            cid,
            INCOMPLETE,
            f"{found} of {want} expected rollouts ({expectation.source}): {want - found} "
            "missing; resume the run (progress is kept) before quoting a score",
        )
    if found > want:
        return failed(
            cid,
            INVALID,
            f"{found} rollouts but {want} expected ({expectation.source}): a different "
            "variant, repeat count or dataset than intended",
        )
    return passed(cid, f"{found} of {want} expected rollouts ({expectation.source})")


# ------------------------------------------------------------------ duplicates, truncation


def check_duplicates(duplicates: int, conflicting: int) -> Check:
    cid = "duplicates"
    if conflicting:
        return failed(
            cid,
            INVALID,
            f"{conflicting} (task, rollout) records repeated with a different reward or "
            "answer: the file mixes two runs",
        )
    if duplicates:
        return warned(
            cid,
            f"{duplicates} identical duplicate (task, rollout) records (a resume appended "
            "them again); counted once",
        )
    return passed(cid, "no duplicate (task, rollout) records")


def check_truncation(truncated_last_line: bool, blank_lines: int = 0) -> Check:
    cid = "truncation"
    if truncated_last_line:
        return failed(
            cid,
            INCOMPLETE,
            "the last line of evaluator_rollouts.jsonl is cut off (the writer was "
            "interrupted); resume the run",
        )
    if blank_lines:
        return passed(cid, f"every line complete ({blank_lines} blank lines ignored)")
    return passed(cid, "every line complete")


# ------------------------------------------------------------------------------------ logs


def check_prefix_gate(mean_prefix_matched: float | None, leaks: dict | None = None) -> Check:
    """LEAKS (benchmarks.mrcr.leaks.leak_reading) adds the reasoning-markup count with
    its threshold; a share above it warns."""
    check = _prefix_gate(mean_prefix_matched)
    if leaks is None or leaks["level"] == "none" or mean_prefix_matched is None:
        return check
    status = WARN if leaks["level"] == "problem" and check.status == PASS else check.status
    return Check(check.id, status, f"{check.message}; {leaks['message']}", check.kind)


def _prefix_gate(mean_prefix_matched: float | None) -> Check:
    cid = "prefix-gate"
    if mean_prefix_matched is None:
        return warned(cid, "no rollouts to measure mean prefix_matched")
    value = f"mean prefix_matched {mean_prefix_matched:.3f}"
    if mean_prefix_matched < PREFIX_INVALID_BELOW:
        return failed(
            cid,
            INVALID,
            f"{value} < {PREFIX_INVALID_BELOW}: the prefix gate is failing, usually "
            "reasoning leaking into the answer (check the reasoning parser and "
            "process_reasoning_traces)",
        )
    if mean_prefix_matched < PREFIX_WARN_BELOW:
        return warned(
            cid,
            f"{value} < {PREFIX_WARN_BELOW} (golden 1M run about 0.55): look for reasoning "
            "leaking into some answers",
        )
    return passed(cid, f"{value} (golden 1M run about 0.55)")


def check_output_limit(length_count: int | None, total: int | None, source: str) -> Check:
    cid = "output-limit"
    if not total or length_count is None:
        return warned(cid, f"no responses to account for the output limit ({source})")
    fraction = length_count / total
    value = f"{length_count}/{total} responses ({fraction:.1%}) ended at the output limit"
    if fraction > LENGTH_INVALID_ABOVE:
        return failed(
            cid,
            INVALID,
            f"{value} ({source}) > {LENGTH_INVALID_ABOVE:.0%}: capped responses score "
            "about 0; raise max_model_len / the token budget and rerun",
        )
    if fraction > LENGTH_WARN_ABOVE:
        return warned(cid, f"{value} ({source}) > {LENGTH_WARN_ABOVE:.0%} (golden 1M run: 2.4%)")
    return passed(cid, f"{value} ({source})")


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=AGGREGATE_REL_TOL, abs_tol=AGGREGATE_ABS_TOL)


def check_aggregate(
    file_metrics: dict[str, Any] | None,
    pass_at_1: float | None,
    strata: dict[str, float],
) -> Check:
    """Compare the aggregate file's pass@1 and needle strata with the recomputation."""
    cid = "aggregate-agreement"
    if file_metrics is None:
        return failed(
            cid,
            INCOMPLETE,
            "no evaluator_rollouts_aggregate_metrics.json: the run did not reach its "
            "aggregation step",
        )
    if pass_at_1 is None:
        return warned(cid, "no rollouts to recompute the aggregate from")
    wanted = {"pass@1/accuracy": pass_at_1}
    wanted.update({f"n_needles={k}/pass@1/accuracy": v for k, v in strata.items()})
    stored_strata = {
        key
        for key in file_metrics
        if key.startswith("n_needles=") and key.endswith("/pass@1/accuracy")
    }
    problems: list[str] = []
    for key, ours in wanted.items():
        theirs = file_metrics.get(key)
        if isinstance(theirs, bool) or not isinstance(theirs, (int, float)):
            problems.append(f"{key} missing")
        elif not _close(float(theirs), ours):
            problems.append(f"{key} {float(theirs):.6g} in the file vs {ours:.6g} recomputed")
    for key in sorted(stored_strata - set(wanted)):
        problems.append(f"{key} in the file but no such stratum in the rollouts")
    if problems:
        return failed(
            cid,
            INVALID,
            "aggregate file disagrees with the rollouts: " + "; ".join(problems[:4]),
        )
    return passed(
        cid,
        f"pass@1 {pass_at_1:.2f} and {len(strata)} needle strata agree with the rollouts "
        f"(relative tolerance {AGGREGATE_REL_TOL:g})",
    )


# ------------------------------------------------------------------------- non-MRCR tasks
