"""MRCR output is capped (`max_new_tokens` or `max_output_tokens` not null).

## What it does
Checks the effective `max_new_tokens` (top level and task) and requires
`++responses_create_params.max_output_tokens=null` in `collect_rollout_params`.

## Why is this bad
The answer must reproduce an earlier turn verbatim (after reasoning); a cap truncates
it and the SequenceMatcher score collapses. The reference run served uncapped.

Severity: error, capped answers are graded as wrong, so the score is not comparable with
the reference.

## Example
```yaml
params:
  max_new_tokens: 16384
```

## Use instead
```yaml
params:
  max_new_tokens: null
collect_rollout_params: >-
  ++responses_create_params.max_output_tokens=null
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL404", "mrcr-output-capped", "error")
def check(ctx):
    cfg = ctx.cfg
    for gym in cfg.gym_tasks:
        if not gym.is_mrcr:
            continue
        for path in (
            cfg.params_path + ("max_new_tokens",),
            cfg.task_params_path(gym.task_index) + ("max_new_tokens",),
        ):
            value = cfg.get(path)
            if value is not None and value != "???":
                yield Hit(
                    path,
                    f"max_new_tokens is {value!r}; MRCR answers must be uncapped",
                    fix="set max_new_tokens: null",
                )
        cap = gym.value("collect_rollout_params", "responses_create_params.max_output_tokens")
        if cap is None or cap.strip().lower() not in ("null", "none"):
            shown = "not set" if cap is None else cap
            yield Hit(
                gym.path("collect_rollout_params"),
                f"responses_create_params.max_output_tokens is {shown}; it must be null",
                fix="add ++responses_create_params.max_output_tokens=null",
            )
