"""Tau3-Banking's run shape at the pinned NeMo Gym commit.

Every figure is read from NVIDIA-NeMo/Gym at GYM_PIN (the file is named beside it);
recipes/tasks/gym/tau3_banking.md lists what could not be checked there.
"""

from __future__ import annotations

GYM_REPO_URL = "https://github.com/NVIDIA-NeMo/Gym"
# Committed 2026-07-30; `.python-version` is 3.12 at this commit.
GYM_PIN = "e446e4f415b9cde0e95bb813c85e9e3e23f5d893"

# benchmarks/tau2/configs/banking_bm25_grep_artificial_analysis.yaml
BENCHMARK_CONFIG = "benchmarks/tau2/configs/banking_bm25_grep_artificial_analysis.yaml"
CONFIG_PATH_MARK = "benchmarks/tau2/configs/banking_"  # any banking_knowledge config
AGENT = "tau2_banking_knowledge_bm25_grep_artificial_analysis_agent"
DATASET = "tau2_banking_knowledge_bm25_grep_artificial_analysis"
DECLARED_REPEATS = 5
MAX_STEPS = 200
# Gym's server entry for the user simulator, and its model snapshot
# (responses_api_models/openai_model/configs/OpenAI/gpt-5.4-mini-2026-03-17.yaml).
USER_SERVER = "gpt-5_4-mini-2026-03-17"
USER_MODEL = "gpt-5.4-mini-2026-03-17"

# benchmarks/tau2/README.md at GYM_PIN: "all 97 tasks, five repeats", at most 10 tool
# errors per task repeat (from the prepared Tau rows, `max_errors`).
TASKS = 97
EXPECTED_ROLLOUTS = TASKS * DECLARED_REPEATS  # 485
MAX_TOOL_ERRORS = 10

# The headline: RewardProfiler's mean of the 0/1 episode rewards, under the agent's name.
SCORE_METRIC = "mean/reward"
SCORE_KEY = f"{AGENT}/{SCORE_METRIC}"
SCALE = "0-1"
# Upstream ModelOpt recipe tasks/gym/tau3_banking.md at b8c1a46c: repeat runs of one
# model agree within about +-0.02 (not measured here).
NOISE_BAND = 0.02

# The shell variables this skill fills the user simulator from (its own names, not Gym's).
USER_ENV = ("TAU3_USER_BASE_URL", "TAU3_USER_MODEL", "INFERENCE_API_KEY")
USER_OVERRIDES = {
    "openai_base_url": "TAU3_USER_BASE_URL",
    "openai_model": "TAU3_USER_MODEL",
    "openai_api_key": "INFERENCE_API_KEY",
}


def user_override(field: str) -> str:
    """The Hydra override that sets one field of the user-simulator server."""
    return f"++{USER_SERVER}.responses_api_models.openai_model.{field}"
