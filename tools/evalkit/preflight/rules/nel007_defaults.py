"""A `defaults:` entry that names no bundled 0.2.6 option and no file beside the config.

## What it does
Resolves the file's `defaults:` list against the groups bundled with the launcher
0.2.6 (execution: local, slurm/default, lepton/default; deployment: none, vllm,
vllm_ray, sglang, trtllm, nim, generic) and the files beside the config: the launcher
makes the config's directory Hydra's primary config source
(nemo-evaluator-launcher 0.2.6, api/types.py:77), so `- _endpoints` is
`_endpoints.yaml` next to it and `- deployment: mine` may be `deployment/mine.yaml`
there. When such a file is missing, that is the one finding: Hydra stops before reading
anything else.

## Why is this bad
Hydra stops with `Could not find 'deployment/vllmm'`; a plain `execution: slurm` fails
the same way (the option is `slurm/default`). A config copied without the file its
`- _endpoints` entry names stops with `Could not load '_endpoints'`. A sibling whose
`defaults:` lead back to itself makes Hydra 1.3.8 recurse until `RecursionError` (nel
exits 1); an entry such as `- ../shared/_endpoints` is read from outside the config's
directory but its values land under the key path `...shared`, not at the root (both
checked with the real nel 0.2.6 `--dry-run`). Preflight also needs the option to know
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


def _fix(message: str) -> str:
    if "lead back to" in message:
        return "remove the entry that leads back (each file is named once in the chain)"
    if "outside the config's directory" in message:
        return "copy the file next to the config and name it without '..'"
    return "pick one of the listed options"


@rule("NEL007", "unknown-defaults-option", "error")
def check(ctx):
    for index, message in ctx.cfg.defaults_problems:
        path = ("defaults", index) if index is not None else ("defaults",)
        yield Hit(path, message, fix=_fix(message))
    missing = ctx.cfg.missing_siblings
    if missing:
        names = ", ".join(name for _, name in missing)
        them = "them" if len(missing) > 1 else "it"
        yield Hit(
            ("defaults", missing[0][0]),
            f"defaults name {names}, not beside the config: Hydra looks for {them} in the "
            "config's own directory and stops (\"Could not load '...'\")",
            fix="copy the whole directory the config came from (its `_*.yaml` files "
            "travel with it), or put the files next to it",
        )
