"""How Tau3-Banking's rollouts are read in the run's single pass.

Items are keyed by the dataset row (`_ng_task_index`), not by the prompt: Gym's tau2 agent
writes the whole conversation back into `responses_create_params.input` (the row's input
plus every turn; responses_api_agents/tau2/app.py at the pin), so the recorded prompt
differs per rollout and would pair nothing across runs. Prepare writes the rows in a
fixed order (sorted dump files, benchmarks/tau2/prepare_utils/__init__.py), so one index
is one task on both sides while the data ref is the same.
"""

from __future__ import annotations

from evalkit.runs.run import PassPlan


class Tau3Plan(PassPlan):
    # The agent names every response `tau2-<domain>-<task id>`: the same on every run.
    unique_response_ids = False

    def item_key(self, rollout):
        return (f"task {rollout.task_index}",)


PLAN = Tau3Plan()
