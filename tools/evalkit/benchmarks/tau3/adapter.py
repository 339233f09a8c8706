"""Tau3-Banking's adapter: a Gym task whose items are its dataset rows (five rollouts
each, plan.py), each episode 0 or 1, its headline `mean/reward` on 0-1."""

from __future__ import annotations

from evalkit.benchmarks.gdpval.adapter import OtherGymAdapter
from evalkit.benchmarks.tau3.facts import AGENT
from evalkit.benchmarks.tau3.plan import PLAN


class Tau3Adapter(OtherGymAdapter):
    name = "tau3_banking"
    plan = PLAN

    def recognises(self, run):
        """A Gym run whose first rollout (or the pass already made) names the Tau3 agent:
        a peek, so other Gym runs are not read twice."""
        if not super().recognises(run):
            return False
        if run.scanned is not None:
            return AGENT in run.scanned.agents
        from evalkit.runs.rollouts import iter_rollouts

        for rollout in iter_rollouts(run.rollouts_path):
            return rollout.agent == AGENT
        return False

    def benchmark(self, run):
        return "tau3_banking"

    def headline(self, run):
        from evalkit.benchmarks.results_yml import other_score
        from evalkit.benchmarks.tau3.score import tau3_score

        return other_score(run, fallback=tau3_score)

    def config_agent(self, run):
        return AGENT


ADAPTER = Tau3Adapter()
