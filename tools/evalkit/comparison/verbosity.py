"""How much longer or shorter the candidate answers (issue 49).

A quantized model that thinks longer costs tokens and context and can hide behind an
unchanged accuracy, so the release flow of the upstream ModelOpt evaluation skill gates it:
each side's mean completion tokens per task, the relative change two-sided, flagged beyond
5 % when both sides' successful response counts match (../shared/facts/
upstream-newest-branches.md). Here it is a warning beside the verdict, never an accuracy
finding: the row's verdict does not change.

Sources per side: nemo-evaluator's `eval_factory_metrics.json` (`response_stats`:
`avg_completion_tokens`, `successful_count`; nemo-evaluator 0.2.8, as in tests/data/suite),
else NeMo Gym's rollouts (`usage.output_tokens` of each unique slot whose call succeeded).
"""

from __future__ import annotations

import math
from typing import Any

from evalkit.errors import InputError

LIMIT = 0.05  # relative change in mean completion tokens beyond which it is flagged


def side_tokens(view: Any) -> dict[str, Any] | None:
    """{mean, successful, source} of one task run, or None when it records neither."""
    from evalkit.inputs import load_json

    path = view.paths.get("metrics")
    if path is not None and path.is_file():
        try:
            doc = load_json(path)
        except InputError:
            doc = None
        stats = doc.get("response_stats") if isinstance(doc, dict) else None
        mean = stats.get("avg_completion_tokens") if isinstance(stats, dict) else None
        count = stats.get("successful_count") if isinstance(stats, dict) else None
        if _number(mean) and type(count) is int:
            return {"mean": float(mean), "successful": count, "source": "eval_factory_metrics.json"}
    scan = view.scan if view.kind == "gym" else None
    if scan is not None and scan.answered:
        return {
            "mean": scan.output_tokens / scan.answered,
            "successful": scan.answered,
            "source": "evaluator_rollouts.jsonl (usage.output_tokens)",
        }
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def verbosity(base_view: Any, cand_view: Any) -> dict[str, Any]:
    """The row's `verbosity`: both means, the relative change and its status: `ok`,
    `longer` or `shorter` (beyond LIMIT), `not_judged` (successful counts differ) or
    `unknown` (a side records no token counts)."""
    base, cand = side_tokens(base_view), side_tokens(cand_view)
    out: dict[str, Any] = {"base": base, "cand": cand, "limit": LIMIT}
    if base is None or cand is None or not base["mean"]:
        missing = "the baseline" if base is None else "the candidate"
        out.update(status="unknown", message=f"no completion token counts on {missing}")
        return out
    change = cand["mean"] / base["mean"] - 1.0
    out["relative_change"] = change
    if base["successful"] != cand["successful"]:
        out.update(
            status="not_judged",
            message=f"mean completion tokens {base['mean']:.1f} -> {cand['mean']:.1f} "
            f"({change:+.1%}), not judged: successful responses differ "
            f"({base['successful']} vs {cand['successful']})",
        )
        return out
    if abs(change) <= LIMIT:
        out.update(status="ok", message=f"mean completion tokens {change:+.1%} (within 5 %)")
        return out
    word = "longer" if change > 0 else "shorter"
    out.update(
        status=word,
        message=f"the candidate answers {abs(change):.0%} {word}: mean completion tokens "
        f"{base['mean']:.1f} -> {cand['mean']:.1f} over {base['successful']} responses each, "
        "beyond 5 % (cost and context, not an accuracy change)",
    )
    return out


__all__ = ["LIMIT", "side_tokens", "verbosity"]
