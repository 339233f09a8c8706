"""`install_on_the_fly.commit` is not a full 40-hex commit (or MRCR has none).

## What it does
Checks the Gym pin of each gym task; for MRCR, also that a pin exists and notes when
it differs from the reference commit.

## Why is this bad
A branch name or short SHA moves or becomes ambiguous; the run then scores whatever
Gym happened to be at, and two runs stop being comparable.

Severity: error, an unpinned Gym makes the score incomparable across runs.

## Example
```yaml
install_on_the_fly:
  commit: a431501
```

## Use instead
```yaml
install_on_the_fly:
  url: https://github.com/NVIDIA-NeMo/Gym
  commit: a431501aa294f3237d472aaf58dd1e5026156ea8
```
"""

import re

from evalkit.benchmarks.mrcr.variants import GYM_PIN
from evalkit.preflight.registry import Hit, rule

FULL_SHA = re.compile(r"[0-9a-f]{40}")


@rule("NEL406", "gym-pin", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        install = gym.raw.get("install_on_the_fly")
        path = gym.path("install_on_the_fly") + ("commit",)
        commit = install.get("commit") if isinstance(install, dict) else None
        if commit is None:
            if gym.is_mrcr:
                yield Hit(
                    gym.path("install_on_the_fly")[:-1],
                    "MRCR has no install_on_the_fly pin",
                    fix=f"add install_on_the_fly.commit: {GYM_PIN}",
                )
            continue
        commit = str(commit)
        if commit == "???":
            continue
        if not FULL_SHA.fullmatch(commit):
            yield Hit(
                path, f"commit {commit!r} is not a full 40-hex SHA", fix="pin the full commit SHA"
            )
        elif gym.is_mrcr and commit != GYM_PIN:
            yield Hit(
                path,
                f"MRCR pin differs from the reference commit {GYM_PIN[:12]}",
                severity="warning",
                fix="use the reference pin unless you re-baselined",
            )
