"""Tasks without item-level data (results.yml only), compared unpaired on their headline
score and standard error; the result says so."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from evalkit.comparison import stats
from evalkit.comparison.sides import Headline, to_points
from evalkit.comparison.verdict import decide


def compare_headlines(
    base: Iterable[Headline], cand: Iterable[Headline], *, margin: float = 1.0
) -> list[dict[str, Any]]:
    """Unpaired comparison per (task, metric) present in both runs."""
    base_by = {(h.task, h.metric): h for h in base}
    cand_by = {(h.task, h.metric): h for h in cand}
    rows: list[dict[str, Any]] = []
    for key in sorted(base_by.keys() | cand_by.keys()):
        b, c = base_by.get(key), cand_by.get(key)
        row: dict[str, Any] = {"task": key[0], "metric": key[1], "paired": False}
        if b is None or c is None:
            row.update(
                verdict="not_comparable",
                reasons=[f"only in the {'candidate' if b is None else 'baseline'} run"],
            )
            rows.append(row)
            continue
        scale = b.scale or c.scale
        bv, cv = to_points(b.value, scale), to_points(c.value, scale)
        bse = None if b.stderr is None else to_points(b.stderr, scale)
        cse = None if c.stderr is None else to_points(c.stderr, scale)
        delta, se, ci = stats.unpaired_normal(bv, bse, cv, cse)
        reasons = []
        if b.scale and c.scale and b.scale != c.scale:
            verdict = "not_comparable"
            reasons.append(f"scales differ: {b.scale} vs {c.scale}")
        elif not math.isfinite(se):
            verdict = "inconclusive"
            reasons.append("no stderr in results.yml on one side: delta only, no interval")
        else:
            verdict, why = decide(delta, ci, margin)
            reasons.append(why)
        reasons.append(
            "unpaired: items are not available, so SE = sqrt(SE_B^2 + SE_C^2) "
            "(wider than a paired SE when both runs score the same items)"
        )
        row.update(
            scale=scale,
            base=bv,
            cand=cv,
            delta=delta,
            se=se,
            ci95=list(ci),
            base_stderr=bse,
            cand_stderr=cse,
            verdict=verdict,
            reasons=reasons,
        )
        rows.append(row)
    return rows
