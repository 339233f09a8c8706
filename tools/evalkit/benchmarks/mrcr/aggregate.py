"""MRCR aggregates recomputed from rollouts the way NeMo Gym's reward_profile does.

Rules (Gym `nemo_gym/reward_profile.py` at the pinned commit):
- rollouts are grouped by `_ng_task_index` and ordered by `_ng_rollout_index`;
- per task, `pass@1`: a task whose rewards are all 0 or 1 scores the combinatorial
  `1 - C(n_wrong, 1) / C(n, 1)` (= the mean of its rollouts); any other task scores
  `max(rewards[:1])`, i.e. rollout 0 only. `pass@1[avg-of-k]` averages the first k;
- headline values are `100 * mean over tasks` (0-100); `n_needles=<v>/...` repeat the
  same over the tasks of one needle count;
- `mean/<field>` are plain means over all rollouts (0-1).
With one rollout per task all pass@1 flavours coincide. Duplicated (task, rollout)
records (appended by a resumed run) are kept once, the first seen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from evalkit.errors import InputError
from evalkit.inputs import read_bytes

MRCR_AGENT = re.compile(r"^mrcr.*_simple_agent$")


class ItemScore(NamedTuple):
    task_index: int
    n_needles: int | None
    key: tuple[str, int | None, str]  # (random_string_to_prepend, n_needles, expected_answer)
    reward: float  # mean reward over the task's rollouts, 0-1


@dataclass
class MrcrAggregate:
    rollouts: int = 0  # unique (task, rollout) records
    duplicates: int = 0  # extra records for a (task, rollout) already seen
    conflicting_duplicates: int = 0  # ... whose reward or item differs from the first
    tasks: int = 0
    max_rollouts_per_task: int = 0
    pass_at_1: float | None = None  # 0-100
    pass_at_1_avg_of_k: float | None = None  # 0-100, k = max_rollouts_per_task
    strata: dict[str, float] = field(default_factory=dict)  # n_needles -> pass@1, 0-100
    strata_avg_of_k: dict[str, float] = field(default_factory=dict)
    strata_counts: dict[str, int] = field(default_factory=dict)  # tasks per n_needles
    prefix_matched: float | None = None  # 0-1, over all rollouts
    mean_reward: float | None = None  # 0-1, over all rollouts
    reasoning_leaks: int = 0  # lines whose answer carries reasoning markup (plan.py)
    per_item: list[ItemScore] = field(default_factory=list)

    def gym_metrics(self) -> dict[str, float]:
        """The recomputed values under the aggregate file's `agent_metrics` key names."""
        k = self.max_rollouts_per_task or 1
        out: dict[str, float] = {}
        if self.mean_reward is not None:
            out["mean/reward"] = self.mean_reward
        if self.prefix_matched is not None:
            out["mean/prefix_matched"] = self.prefix_matched
        if self.pass_at_1 is not None:
            out["pass@1/accuracy"] = self.pass_at_1
        if self.pass_at_1_avg_of_k is not None:
            out[f"pass@1[avg-of-{k}]/accuracy"] = self.pass_at_1_avg_of_k
        for needles, value in self.strata.items():
            out[f"n_needles={needles}/pass@1/accuracy"] = value
        for needles, value in self.strata_avg_of_k.items():
            out[f"n_needles={needles}/pass@1[avg-of-{k}]/accuracy"] = value
        return out


def _task_pass_at_1(rewards: list[float]) -> float:
    if all(r in (0.0, 1.0) for r in rewards):
        n = len(rewards)
        wrong = sum(1 for r in rewards if r == 0.0)
        return 1.0 - math.comb(wrong, 1) / math.comb(n, 1)
    return max(rewards[:1])


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def recompute(rollouts: Iterable[Any]) -> MrcrAggregate:
    """Aggregate rollouts (objects with task_index, rollout_index, reward, prefix_matched,
    n_needles, random_string_to_prepend, expected_answer)."""
    agg = MrcrAggregate()
    seen: dict[tuple[int, int], float | None] = {}
    by_task: dict[int, list[tuple[int, float]]] = {}
    item_of_task: dict[int, tuple[str, int | None, str]] = {}
    rewards: list[float] = []
    matched: list[float] = []
    for r in rollouts:
        reward = r.reward
        slot = (r.task_index, r.rollout_index)
        item = (r.random_string_to_prepend, r.n_needles, r.expected_answer)
        if slot in seen:
            agg.duplicates += 1
            if seen[slot] != reward or item_of_task.get(r.task_index) != item:
                agg.conflicting_duplicates += 1
            continue
        seen[slot] = reward
        value = 0.0 if reward is None else float(reward)
        by_task.setdefault(r.task_index, []).append((r.rollout_index, value))
        item_of_task.setdefault(r.task_index, item)
        if reward is not None:
            rewards.append(value)
        if r.prefix_matched is not None:
            matched.append(1.0 if r.prefix_matched else 0.0)
    agg.rollouts = len(seen)
    agg.tasks = len(by_task)
    agg.mean_reward = _mean(rewards)
    agg.prefix_matched = _mean(matched)
    if not by_task:
        return agg

    k = max(len(v) for v in by_task.values())
    agg.max_rollouts_per_task = k
    overall: list[float] = []
    overall_avg: list[float] = []
    per_needles: dict[int | None, tuple[list[float], list[float]]] = {}
    for task in sorted(by_task):
        values = [reward for _idx, reward in sorted(by_task[task])]
        p1 = _task_pass_at_1(values)
        avg = math.fsum(values[:k]) / len(values[:k])
        overall.append(p1)
        overall_avg.append(avg)
        item = item_of_task[task]
        bucket = per_needles.setdefault(item[1], ([], []))
        bucket[0].append(p1)
        bucket[1].append(avg)
        agg.per_item.append(ItemScore(task, item[1], item, math.fsum(values) / len(values)))

    agg.pass_at_1 = 100.0 * _mean(overall)
    agg.pass_at_1_avg_of_k = 100.0 * _mean(overall_avg)
    for needles in sorted(per_needles, key=lambda v: (v is None, v or 0)):
        p1s, avgs = per_needles[needles]
        name = str(needles)
        agg.strata[name] = 100.0 * _mean(p1s)
        agg.strata_avg_of_k[name] = 100.0 * _mean(avgs)
        agg.strata_counts[name] = len(p1s)
    return agg


# ---- the aggregate file written by Gym ----------------------------------------------


class _AgentRefName(msgspec.Struct):
    name: str | None = None


class _AggregateEntry(msgspec.Struct):
    agent_ref: _AgentRefName | None = None
    agent_metrics: dict[str, Any] | None = None


_AGG_DECODER = msgspec.json.Decoder(list[_AggregateEntry])
_BYTE_POS = re.compile(r"\(byte (\d+)\)")


def read_aggregate_entries(path: str | Path) -> list[tuple[str | None, dict[str, Any]]]:
    """(agent name, agent_metrics) per entry; `group_level_metrics` is never built."""
    p = Path(path)
    data = read_bytes(p)  # bounded; a FIFO or device is refused, not waited on
    try:
        entries = _AGG_DECODER.decode(data)
    except RecursionError:
        raise InputError("JSON nesting too deep", p) from None
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        text = str(err)
        match = _BYTE_POS.search(text)
        line = data[: int(match.group(1))].count(b"\n") + 1 if match else None
        if isinstance(err, msgspec.ValidationError):
            message = f"unexpected aggregate metrics shape: {text}"
        elif "UTF-8" in text:
            message = "not valid UTF-8"
        else:
            detail = _BYTE_POS.sub("", text).replace("JSON is malformed:", "").strip()
            message = f"malformed JSON ({detail})"
        raise InputError(message, p, line) from None
    return [(e.agent_ref.name if e.agent_ref else None, e.agent_metrics or {}) for e in entries]


def select_agent(
    entries: list[tuple[str | None, dict[str, Any]]], agent: str | None, path: str | Path
) -> tuple[str, dict[str, Any]]:
    """The entry named `agent`, or the only MRCR-looking entry when agent is None."""
    names = [name for name, _ in entries]
    if agent is not None:
        for name, metrics in entries:
            if name == agent:
                return name, metrics
        raise InputError(f"no entry for agent {agent!r} (entries: {names})", path)
    mrcr = [(n, m) for n, m in entries if n and MRCR_AGENT.match(n)]
    if len(mrcr) == 1:
        return mrcr[0]
    if not mrcr:
        raise InputError(f"no mrcr*_simple_agent entry (entries: {names})", path)
    raise InputError(
        f"several MRCR entries ({', '.join(n for n, _ in mrcr)}); name the agent", path
    )


def read_aggregate_file(path: str | Path, agent: str | None = None) -> dict[str, Any]:
    """`agent_metrics` of the entry whose `agent_ref.name` is `agent` (see select_agent)."""
    return select_agent(read_aggregate_entries(path), agent, path)[1]


def compare_metrics(
    ours: dict[str, float], theirs: dict[str, Any], rel_tol: float = 1e-6
) -> list[dict[str, Any]]:
    """Keys whose values differ beyond rel_tol (a key present on one side only counts).

    Compares our pass@1, avg-of-k, needle strata and means; other file keys are ignored.
    """
    relevant = re.compile(r"^(n_needles=[^/]+/)?pass@1/accuracy$")
    keys = set(ours) | {k for k in theirs if relevant.match(k)}
    diffs = []
    for key in sorted(keys):
        mine, file_value = ours.get(key), theirs.get(key)
        if isinstance(file_value, bool) or not isinstance(file_value, (int, float)):
            file_value = None
        if mine is None or file_value is None:
            if file_value is None and ("mean/" in key or "avg-of" in key):
                continue  # optional in the file; pass@1 and its strata decide
            diffs.append({"key": key, "recomputed": mine, "file": file_value})
            continue
        if not math.isclose(mine, float(file_value), rel_tol=rel_tol, abs_tol=1e-9):
            diffs.append({"key": key, "recomputed": mine, "file": float(file_value)})
    return diffs
