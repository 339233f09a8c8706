"""The aggregate metrics file, computed the way NeMo Gym's `nemo_gym/reward_profile.py`
does at the MRCR pin (written from the facts; tests/test_gym_oracle.py checks it against
Gym's own code)."""

from __future__ import annotations

import math
import statistics


def _stats(values: list[float]) -> dict[str, float]:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return {}
    return {
        "mean": sum(vals) / len(vals),
        "max": max(vals),
        "min": min(vals),
        "median": statistics.median(vals),
        "std": statistics.stdev(vals) if len(vals) > 1 else float("nan"),
    }


def _pass_at_1(rewards: list[float]) -> float:
    if all(r in (0.0, 1.0) for r in rewards):
        n, wrong = len(rewards), sum(1 for r in rewards if r == 0.0)
        return 1.0 - math.comb(wrong, 1) / math.comb(n, 1)
    return max(rewards[:1])


def gym_aggregate(records: list[dict], agent: str) -> list[dict]:
    """The aggregate metrics file content for unique records (dicts as written)."""
    fields = (
        "reward",
        "n_needles",
        "n_tokens",
        "prefix_matched",
        "seq_match_ratio",
        "input_tokens",
        "output_tokens",
        "total_tokens",
    )

    def flat(rec: dict) -> dict:
        usage = rec["response"]["usage"] or {}
        row = {f: rec.get(f) for f in fields[:5]}
        row["prefix_matched"] = float(row["prefix_matched"])
        for f in fields[5:]:
            row[f] = usage.get(f, float("nan"))
        return row

    rows = [flat(r) for r in records]
    metrics: dict = {}
    for stat in ("mean", "max", "min", "median", "std"):
        for f in fields:
            s = _stats([row[f] for row in rows])
            if s:
                metrics[f"{stat}/{f}"] = s[stat]
    by_task: dict[int, list[dict]] = {}
    for rec in sorted(records, key=lambda r: (r["_ng_task_index"], r["_ng_rollout_index"])):
        by_task.setdefault(rec["_ng_task_index"], []).append(rec)
    k = max(len(v) for v in by_task.values())
    p1 = [_pass_at_1([r["reward"] for r in v]) for v in by_task.values()]
    avg = [sum(r["reward"] for r in v[:k]) / len(v[:k]) for v in by_task.values()]
    metrics["pass@1/accuracy"] = 100.0 * sum(p1) / len(p1)
    metrics[f"pass@1[avg-of-{k}]/accuracy"] = 100.0 * sum(avg) / len(avg)
    metrics["per_sample_aggregate"] = {"accuracy": [metrics[f"pass@1[avg-of-{k}]/accuracy"]]}
    needles_order: list[int] = []
    for v in by_task.values():
        if v[0]["n_needles"] not in needles_order:
            needles_order.append(v[0]["n_needles"])
    for n in needles_order:
        tasks = [v for v in by_task.values() if v[0]["n_needles"] == n]
        sp1 = [_pass_at_1([r["reward"] for r in v]) for v in tasks]
        savg = [sum(r["reward"] for r in v[:k]) / len(v[:k]) for v in tasks]
        metrics[f"n_needles={n}/pass@1/accuracy"] = 100.0 * sum(sp1) / len(sp1)
        metrics[f"n_needles={n}/pass@1[avg-of-{k}]/accuracy"] = 100.0 * sum(savg) / len(savg)
    groups = []
    for task, v in by_task.items():
        info = [
            {
                "rollout_id": f"{task}:{r['_ng_rollout_index']}",
                "_ng_task_index": task,
                "_ng_rollout_index": r["_ng_rollout_index"],
                "reward": r["reward"],
                "n_needles": r["n_needles"],
                "prefix_matched": int(r["prefix_matched"]),
                "seq_match_ratio": r["seq_match_ratio"],
            }
            for r in v
        ]
        groups.append(
            {
                "_ng_task_index": task,
                "mean/reward": sum(r["reward"] for r in v) / len(v),
                "sample": {"agent_ref": {"name": "agent"}},
                "num_rollouts": len(v),
                "expected_num_rollouts": len(v),
                "missing_num_rollouts": 0,
                "reward_profile_completion_pct": 100.0,
                "rollout_infos": info,
            }
        )
    key = {
        "mean/input_tokens": metrics.get("mean/input_tokens"),
        "mean/output_tokens": metrics.get("mean/output_tokens"),
        f"pass@1[avg-of-{k}]/accuracy": metrics[f"pass@1[avg-of-{k}]/accuracy"],
        "pass@1/accuracy": metrics["pass@1/accuracy"],
    }
    return [
        {
            "agent_ref": {"name": agent},
            "agent_metrics": metrics,
            "key_metrics": key,
            "group_level_metrics": groups,
        }
    ]
