"""A secret (`HF_TOKEN`, `*_API_KEY`, `*TOKEN*`, `*SECRET*`) passed as `lit:`.

## What it does
Flags `lit:` values of env vars whose name looks like a secret. `lit:dummy` style
placeholder keys for a self-deployed endpoint (`DUMMY_API_KEY: lit:dummy`) are fine.

## Why is this bad
A `lit:` value is written into the config itself, and the launcher echoes the resolved
config as comments in `run.sub` and into `metadata.yaml`, which auto-export uploads.
The token ends up in job scripts, result directories and MLflow.

Severity: error, kept for a secret written in plain text into the job script and the
exported metadata; a leaked credential is never a matter of taste.

## Example
```yaml
evaluation:
  env_vars:
    HF_TOKEN: lit:hf_aBcD...
```

## Use instead
```yaml
evaluation:
  env_vars:
    HF_TOKEN: host:HF_TOKEN
```
"""

from evalkit.preflight.context import is_secret_name
from evalkit.preflight.registry import Hit, rule

HARMLESS = {"dummy", "none", "empty", "EMPTY", "???", "placeholder"}


@rule("NEL103", "secret-as-literal", "error")
def check(ctx):
    for section, mapping in ctx.cfg.env_maps():
        for name, value in mapping.items():
            if not (isinstance(name, str) and isinstance(value, str)):
                continue
            if not value.startswith("lit:") or not is_secret_name(name):
                continue
            literal = value[4:].strip()
            if literal in HARMLESS or name.upper().startswith("DUMMY"):
                continue
            yield Hit(
                section + (name,),
                f"secret {name} is written as a literal value",
                fix=f"use 'host:{name}' and export {name} in your shell or .env",
            )
