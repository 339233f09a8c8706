"""The MRCR variant differs between data preparation and rollouts, or is unknown.

## What it does
Reads `benchmarks/mrcr/<config>` from `+config_paths=[...]` in `data_prep_params` and
`collect_rollout_params` and checks both name the same known variant
(`config_n3_1m.yaml`, `config_n3_128k.yaml`, `config.yaml`).

## Why is this bad
The variant picks the context cap, the dataset and the metric prefix. A mismatch
prepares one dataset and rolls out another; an unknown name fails at startup.

Severity: error, the prepared data and the rollouts disagree, so the score is wrong or
incomparable.

## Example
```yaml
data_prep_params: >-
  "+config_paths=[...,benchmarks/mrcr/config_n3_1m.yaml]"
collect_rollout_params: >-
  "+config_paths=[...,benchmarks/mrcr/config_n3_128k.yaml]"
```

## Use instead
The same `benchmarks/mrcr/<config>` in both strings.
"""

from evalkit.benchmarks.mrcr.variants import VARIANTS
from evalkit.preflight.registry import Hit, rule


@rule("NEL403", "mrcr-variant-mismatch", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        configs = gym.mrcr_configs()
        if not any(configs.values()):
            continue
        for section, path in configs.items():
            where = gym.path(section)
            if path is None:
                yield Hit(
                    where,
                    f"{section} names no benchmarks/mrcr config while the other section does",
                    fix="name the same variant in both",
                )
            elif path.rsplit("/", 1)[-1] not in VARIANTS:
                known = ", ".join(VARIANTS)
                yield Hit(
                    where,
                    f"unknown MRCR variant {path!r} (known: {known})",
                    token=path,
                    fix="use one of the known variant configs",
                )
        names = {p.rsplit("/", 1)[-1] for p in configs.values() if p}
        if len(names) > 1:
            yield Hit(
                gym.path("collect_rollout_params"),
                "data_prep_params and collect_rollout_params name different variants: "
                + " vs ".join(sorted(names)),
                fix="use the same benchmarks/mrcr config in both",
            )
