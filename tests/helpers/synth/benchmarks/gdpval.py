"""A synthetic GDPVal rubric-mode task directory."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from ..runs.files import dump_line
from ..text import FORMATS, TOPICS, prose


def write_gdpval_run(
    task_dir: Path,
    *,
    n_items: int = 40,
    seed: int = 0,
    quality: float | Sequence[float] = 0.6,
    gym_version: str = "baked-in 0.2.0rc0",
    prompts_seed: int = 0,
) -> Path:
    """A GDPVal rubric-mode task directory at TASK_DIR (e.g. `<invocation>/nemo_gym.1`).

    The rollout line shape is a guess modelled on the Gym rollout format of MRCR (same
    envelope: responses_create_params, response, reward, _ng_task_index,
    _ng_rollout_index, agent_ref); no recorded GDPVal line was available. Rewards are
    rubric scores in [0, 1] around `quality` (per item when a sequence). The client log
    carries the bootstrap's `=== NeMo Gym version ===` banner with `gym_version`."""
    task_dir = Path(task_dir)
    artifacts, logs = task_dir / "artifacts", task_dir / "logs"
    artifacts.mkdir(parents=True)
    logs.mkdir()
    prompts = random.Random(f"gdpval-prompts-{prompts_seed}")
    qualities = [quality] * n_items if isinstance(quality, (int, float)) else list(quality)
    lines = []
    for i in range(n_items):
        kind, topic = prompts.choice(FORMATS), prompts.choice(TOPICS)
        ask = f"Draft a {kind} on {topic}: {prose(prompts, 200)}"
        draw = random.Random(f"gdpval-{seed}-{i}")
        reward = min(1.0, max(0.0, round(draw.gauss(qualities[i], 0.15), 4)))
        text = prose(draw, 400)
        lines.append(
            {
                "responses_create_params": {
                    "input": [{"content": ask, "role": "user", "type": "message"}],
                    "temperature": 1.0,
                    "top_p": 0.95,
                },
                "response": {
                    "id": f"resp_{draw.getrandbits(64):016x}",
                    "model": "served-model",
                    "output": [
                        {
                            "id": f"msg_{draw.getrandbits(64):016x}",
                            "content": [{"annotations": [], "text": text, "type": "output_text"}],
                            "role": "assistant",
                            "status": "completed",
                            "type": "message",
                        }
                    ],
                    "usage": {"input_tokens": 900, "output_tokens": 300, "total_tokens": 1200},
                    "incomplete_details": None,
                },
                "reward": reward,
                "_ng_task_index": i,
                "_ng_rollout_index": 0,
                "agent_ref": {"type": "responses_api_agents", "name": "gdpval_stirrup_agent"},
            }
        )
    (artifacts / "evaluator_rollouts.jsonl").write_bytes(b"".join(dump_line(r) for r in lines))
    (artifacts / "results.yml").write_text(
        "results:\n  groups:\n    nemo_gym:\n      metrics:\n"
        "        key_metrics/mean/output_tokens:\n          scores:\n"
        "            key_metrics/mean/output_tokens:\n              value: 300.0\n"
        "  tasks: {}\n"
    )
    (artifacts / "eval_factory_metrics.json").write_text(
        json.dumps(
            {"response_stats": {"count": n_items, "finish_reason": {"stop": n_items}}}, indent=2
        )
    )
    (artifacts / "run_config.yml").write_text(
        "config:\n  type: nemo_gym\n  params:\n    temperature: 1.0\n    top_p: 0.95\n"
        "target:\n  api_endpoint:\n    model_id: served-model\n"
    )
    (task_dir / "run.sub").write_text("#!/bin/bash\n#SBATCH --job-name=nemo_gym.1\n")
    (logs / f"client-{4_200_000 + seed}.log").write_text(
        "/opt/Gym is not a git repo; using baked-in Gym version\n"
        f"=== NeMo Gym version ===\n{gym_version}\nCollecting rollouts: {n_items} rows\n"
    )
    return task_dir
