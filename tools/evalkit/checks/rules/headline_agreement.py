"""The harness's headline agrees with the mean of its own items.

## What it does
For a task whose harness leaves per-item files (simple-evals, lm-eval, HLE: the adapters
of `benchmarks/registry.py`), recomputes the headline from the items (each item's repeats
averaged, a failed or missing item counted 0, as the harnesses count them) and compares
it with the headline in `results.yml`, on the headline's declared scale (else the items'),
to 1e-4 of a 0-1 unit (results.yml keeps the harness's float; rounding to 4 digits still
agrees). Only on a finished run with both.

## Why is this bad
Severity: fail (`invalid`). A headline the items do not reproduce is not the score of
these items: items were dropped from the per-item file (a samples file short of the
documents scored), or results.yml belongs to another run. compare pairs the items, so
the number quoted from results.yml and the delta compare reports would disagree.

## Example
`results.yml says 0.615 (gpqa_diamond_score_micro, 0-1); the 182 items' mean is 0.6758`.

## Fix
Find which file is not this run's (a copied results.yml, a samples file cut short or
edited) and rerun the task into a fresh output directory.
"""

from __future__ import annotations

from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INVALID, Check, failed, passed
from evalkit.checks.rule import Rule

ID = "headline-agreement"
TOLERANCE = 1e-4  # of a 0-1 unit
UNIT = {"0-1": 1.0, "0-100": 100.0, "-100..100": 100.0}


def check_headline(mean: float, items: int, value: float, metric: str, scale: str) -> Check:
    factor = UNIT[scale]
    shown = f"results.yml says {value:.6g} ({metric}, {scale})"
    ours = f"the {items} items' mean is {mean * factor:.6g}"
    if abs(mean * factor - value) > TOLERANCE * factor:
        return failed(ID, INVALID, f"{shown}; {ours}: the headline is not the score of these items")
    return passed(ID, f"{shown}; {ours}")


def judge(ev: Evidence) -> Check | None:
    from evalkit.benchmarks.results_yml.denominators import item_means

    head, outcomes = ev.headline, ev.outcomes
    if ev.growing or head is None or outcomes is None or not outcomes.items:
        return None
    value, metric = head.get("value"), head.get("metric")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None  # no documented headline: the score check says so
    scale = head.get("scale") if head.get("scale") in UNIT else ev.item_scale
    if scale not in UNIT:
        return passed(ID, f"not compared: neither {metric} nor its items declare a scale")
    means = list(item_means(outcomes).values())
    return check_headline(sum(means) / len(means), len(means), float(value), metric, scale)


RULE = Rule(ID, "headline from the items", judge, __doc__ or "", growing=False)
