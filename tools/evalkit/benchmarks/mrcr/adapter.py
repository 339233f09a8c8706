"""MRCR's adapter: a Gym task whose items are paired by content (the plan), scored per
rollout by Gym's reward (0 or 1: grading.py), with its headline from the aggregate file
(score.py) and its needle strata."""

from __future__ import annotations

from evalkit.benchmarks import mrcr
from evalkit.benchmarks.adapter import Adapter
from evalkit.benchmarks.mrcr.score import NEEDLE_STRATA, mrcr_score


class GymAdapter(Adapter):
    """A NeMo Gym task with rollouts: items from the run's one pass with `plan`."""

    name = "gym"
    kind = "gym"

    def recognises(self, run):
        return run.is_gym and run.rollouts_path.is_file()

    def scan(self, run):
        return run.scan(self.plan)

    def item_scale(self, run):
        return "0-1"  # a rollout's reward

    def dataset(self, run):
        if not run.rollouts_path.is_file():
            return None
        from evalkit.runs.fingerprint import dataset_identity

        # The item key holds the prompt (MRCR: its random prefix): it is the pair's id.
        found = dataset_identity((repr(k), "") for k in self.scan(run).items)
        return found.item_count, found.digest

    def responses(self, run):
        return self.scan(run).fingerprints if run.rollouts_path.is_file() else None


class MrcrAdapter(GymAdapter):
    name = "mrcr"
    plan = mrcr.PLAN
    strata = NEEDLE_STRATA

    def recognises(self, run):
        return mrcr.recognises(run)

    def benchmark(self, run):
        return "mrcr"

    def headline(self, run):
        return mrcr_score(run)

    def copies_prompt(self, run):
        return run.copies_prompt

    def config_agent(self, run):
        from evalkit.benchmarks.mrcr.variants import agent_of

        return agent_of(run.settings_or_empty)


ADAPTER = MrcrAdapter()
