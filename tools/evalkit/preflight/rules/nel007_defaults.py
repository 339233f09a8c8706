"""A `defaults:` entry that names no bundled 0.2.6 config group option.

## What it does
Resolves the file's `defaults:` list against the groups bundled with the launcher
0.2.6 (execution: local, slurm/default, lepton/default; deployment: none, vllm,
vllm_ray, sglang, trtllm, nim, generic).

## Why is this bad
Hydra stops with `Could not find 'deployment/vllmm'`; a plain `execution: slurm` fails
the same way (the option is `slurm/default`). Preflight also needs the option to know
the effective defaults (for example `gres: gpu:8`, `mount_home: true`).

Severity: error, Hydra refuses the config while composing it.

## Example
```yaml
defaults:
  - execution: slurm
```

## Use instead
```yaml
defaults:
  - execution: slurm/default
  - deployment: vllm
  - _self_
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL007", "unknown-defaults-option", "error")
def check(ctx):
    for index, message in ctx.cfg.defaults_problems:
        path = ("defaults", index) if index is not None else ("defaults",)
        yield Hit(path, message, fix="pick one of the listed options")
