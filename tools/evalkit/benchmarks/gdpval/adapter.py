"""The adapter of a Gym task other than MRCR (GDPVal, or another agent): items keyed by
prompt (the generic plan), the headline from results.yml, else GDPVal's rubric mean."""

from __future__ import annotations

from evalkit.benchmarks import gdpval
from evalkit.benchmarks.mrcr.adapter import GymAdapter


class OtherGymAdapter(GymAdapter):
    name = "gym"

    def benchmark(self, run):
        agent = self.scan(run).first_agent or ""
        return "gdpval" if gdpval.recognises([agent]) else (agent or run.name)

    def headline(self, run):
        from evalkit.benchmarks.results_yml import other_score

        return other_score(run, fallback=gdpval.gym_rubric_score)


ADAPTER = OtherGymAdapter()
