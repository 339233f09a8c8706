"""Tau3-Banking's user simulator is not wired: its key, endpoint or model is unset.

## What it does
For a Tau3 `banking_knowledge` gym task, reads the overrides of Gym's user-simulator
server (`gpt-5_4-mini-2026-03-17.responses_api_models.openai_model.*`) in
`collect_rollout_params` and `common_params`:
- `openai_api_key` never set: the benchmark config leaves it as a placeholder;
- any of `openai_api_key`, `openai_base_url`, `openai_model` set to nothing;
- any of them read from `$NAME` that no env mapping gives the task container (top-level,
  `evaluation`, `execution` or the task's own `env_vars`), or that maps to an empty
  `lit:` value.

A `host:` mapping whose variable is unset in this shell is NEL104's warning.

## Why is this bad
Every agent turn waits on the simulated customer. Without a key every user call is
refused; an unmapped `$NAME` stops the rollout under `set -u` ("unbound variable"); an
empty endpoint or model name fails every call. Every episode fails at its first user
turn.

Severity: error, no episode can run, so the run fails or scores nothing.

## Example
```yaml
collect_rollout_params: >-
  ++gpt-5_4-mini-2026-03-17.responses_api_models.openai_model.openai_base_url="$TAU3_USER_BASE_URL"
# and no TAU3_USER_BASE_URL under evaluation.env_vars
```

## Use instead
Map the three variables from the launching shell and read them in the rollout overrides
(the template does both):
`evaluation.env_vars: {TAU3_USER_BASE_URL: host:TAU3_USER_BASE_URL,
TAU3_USER_MODEL: host:TAU3_USER_MODEL, INFERENCE_API_KEY: host:INFERENCE_API_KEY}`.
"""

import re

from evalkit.benchmarks.tau3.facts import USER_OVERRIDES, user_override
from evalkit.preflight.registry import Hit, rule

# Env sections that reach the task container (deployment and export ones do not).
TASK_SECTIONS = {("env_vars",), ("evaluation", "env_vars"), ("execution", "env_vars")}
SHELL_VAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def _task_env(ctx, index: int) -> dict:
    env: dict = {}
    for section, mapping in ctx.cfg.env_maps():
        if section in TASK_SECTIONS or section == ("evaluation", "tasks", index, "env_vars"):
            env.update(mapping)
    return env


def _value(gym, field: str) -> tuple[str | None, str]:
    override = user_override(field).removeprefix("++")
    for section in ("collect_rollout_params", "common_params"):
        value = gym.value(section, override)
        if value is not None:
            return value, section
    return None, "collect_rollout_params"


@rule("NEL414", "tau3-user-simulator-unset", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        if not gym.is_tau3:
            continue
        env = _task_env(ctx, gym.task_index)
        for field, suggested in USER_OVERRIDES.items():
            value, section = _value(gym, field)
            where = gym.path(section)
            fix = (
                f'add {user_override(field)}="${suggested}" and map {suggested} '
                "in evaluation.env_vars"
            )
            if value is None:
                if field == "openai_api_key":
                    yield Hit(
                        where,
                        "the Tau3 user simulator's openai_api_key is never set: every user "
                        "turn is refused",
                        fix=fix,
                    )
                continue  # Gym's defaults: the public OpenAI endpoint and the pinned snapshot
            if not value.strip():
                yield Hit(where, f"the Tau3 user simulator's {field} is set to nothing", fix=fix)
                continue
            for name in SHELL_VAR.findall(value):
                mapped = env.get(name)
                if mapped is None:
                    yield Hit(
                        where,
                        f"the Tau3 user simulator's {field} reads ${name}, which no env_vars "
                        "mapping gives the task: the rollout stops (unbound variable)",
                        token=name,
                        fix=f"add {name}: host:{name} under evaluation.env_vars",
                    )
                elif isinstance(mapped, str) and mapped.strip() in ("lit:", ""):
                    yield Hit(
                        where,
                        f"the Tau3 user simulator's {field} reads ${name}, which maps to an "
                        "empty value",
                        token=name,
                        fix=f"map {name} to host:{name}",
                    )
