"""How MRCR reads a run's rollouts in its one pass: items keyed by content (task indices
differ between runs), an exact copy of the answer needs no digest, and Gym's aggregate is
recomputed from the same stream."""

from __future__ import annotations

from collections.abc import Iterator

from evalkit.benchmarks.mrcr.aggregate import recompute
from evalkit.benchmarks.mrcr.leaks import leaked_reasoning
from evalkit.runs.rollouts import Rollout
from evalkit.runs.run import ItemKey, PassPlan


class MrcrPlan(PassPlan):
    keeps_offsets = True  # identical responses are checked against their own prompt

    def item_key(self, rollout: Rollout) -> ItemKey:
        return rollout.key

    def trivial(self, rollout: Rollout, body: str) -> bool:
        prefix = rollout.random_string_to_prepend
        answer = rollout.expected_answer.strip().removeprefix(prefix)
        return body.removeprefix(prefix) == answer

    def fold(self, rollouts: Iterator[Rollout]):
        leaks = 0

        def counted() -> Iterator[Rollout]:
            nonlocal leaks
            for rollout in rollouts:
                leaks += leaked_reasoning(rollout.response_text)
                yield rollout

        agg = recompute(counted())
        agg.reasoning_leaks = leaks  # per line, as regrade's flag counts them
        return agg, [(item.key, item.reward) for item in agg.per_item]


PLAN = MrcrPlan()
