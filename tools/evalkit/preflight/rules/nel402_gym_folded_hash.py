"""A `#` inside a gym parameter string (`data_prep_params`, `collect_rollout_params`,
`common_params`).

## What it does
Looks for a word starting with `#` in the three parameter strings.

## Why is this bad
They are folded (`>-`) scalars: YAML joins the lines into one and keeps the `#` as
text. The gym command line then reaches bash with `#` in the middle, and bash drops
everything after it, so every later override is silently lost.

Severity: error, the gym parameters after the `#` are dropped, so the benchmark run
differs from the one configured.

## Example
```yaml
collect_rollout_params: >-
  ++split=benchmark
  # canary: ++limit=10
  ++resume_from_cache=true
```

## Use instead
Put comments above the key, outside the scalar; keep the scalar to overrides only.
"""

import re

from evalkit.config.model import GYM_PARAM_KEYS
from evalkit.preflight.registry import Hit, rule

HASH_WORD = re.compile(r"(^|\s)#")


@rule("NEL402", "gym-param-comment", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        for key in GYM_PARAM_KEYS:
            value = gym.raw.get(key)
            if isinstance(value, str) and HASH_WORD.search(value):
                yield Hit(
                    gym.path(key),
                    f"'#' inside {key}: bash drops every override after it",
                    fix="move the comment above the key",
                    token="#",
                )
