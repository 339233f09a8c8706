"""GDPVal (NeMo Gym, stirrup agent). In rubric mode it reports no headline key in
results.yml: its score is then the mean reward over the rollouts."""

from __future__ import annotations

import math
import statistics
from typing import Any

from evalkit.runs.run import Run


def recognises(agents: Any) -> bool:
    """Whether the agents seen in the rollouts are GDPVal's."""
    return any("gdpval" in (name or "") for name in agents)


def gym_rubric_score(task: Run) -> dict[str, Any] | None:
    """GDPVal in rubric mode reports no headline key: its score is the mean `reward` over
    the rollouts (0-1), with the standard error of that mean (sd with ddof=1 over sqrt(n))."""
    if not task.is_gym or not task.rollouts_path.is_file():
        return None
    scan = task.scan()  # GDPVal keys items by prompt: the generic plan
    rewards = scan.rewards
    if not rewards or not recognises(scan.agents):
        return None
    n = len(rewards)
    mean = math.fsum(rewards) / n
    stderr = statistics.stdev(rewards) / math.sqrt(n) if n > 1 else None
    return {
        "benchmark": "gdpval",
        "metric": "mean reward over evaluator_rollouts.jsonl (rubric mode)",
        "value": mean,
        "scale": "0-1",
        "stderr": stderr,
        "rollouts": n,
    }
