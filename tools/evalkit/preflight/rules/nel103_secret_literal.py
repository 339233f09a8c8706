"""A secret (`HF_TOKEN`, `*_API_KEY`, `*_SECRET`, `*_PASSWORD`) passed as `lit:`.

## What it does
Flags `lit:` values of env vars whose name has a secret word (TOKEN, KEY, SECRET,
PASSWORD, CREDENTIALS, ... as a whole `_`-separated word; `TOKENIZERS_PARALLELISM`,
`MAX_TOKENS` and `API_KEY_NAME` are not secrets), the same test the redaction of every
output uses. `lit:dummy` style placeholder keys for a self-deployed endpoint
(`DUMMY_API_KEY: lit:dummy`), a variable's name and a number are fine.

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

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets import is_harmless_value, is_secret_name


@rule("NEL103", "secret-as-literal", "error")
def check(ctx):
    for section, mapping in ctx.cfg.env_maps():
        for name, value in mapping.items():
            if not (isinstance(name, str) and isinstance(value, str)):
                continue
            if not value.startswith("lit:") or not is_secret_name(name):
                continue
            if is_harmless_value(value, name) or name.upper().startswith("DUMMY"):
                continue  # a placeholder, a variable's name or a number: no credential
            yield Hit(
                section + (name,),
                f"secret {name} is written as a literal value",
                fix=f"use 'host:{name}' and export {name} in your shell or .env",
            )
