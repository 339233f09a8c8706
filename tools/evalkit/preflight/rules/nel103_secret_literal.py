"""A secret (`HF_TOKEN`, `*_API_KEY`, `*_SECRET`, `*_PASSWORD`) passed as `lit:`, or a
credential written anywhere else in the config.

## What it does
Flags `lit:` values of env vars whose name has a secret word (TOKEN, KEY, SECRET,
PASSWORD, CREDENTIALS, ... as a whole `_`-separated word; `TOKENIZERS_PARALLELISM`,
`MAX_TOKENS` and `API_KEY_NAME` are not secrets) or whose value has a credential's shape
(an `hf_...` token, a key, a password in a URL), the same tests the redaction of every
output uses. Outside the env vars it flags a credential-shaped value anywhere in the
config and, in a command (`pre_cmd`, `command`), a secret-named assignment such as
`export WANDB_API_KEY=...`; a shell comment (`# SECRETS: set -x traces ...`) assigns
nothing and is read for credential shapes only. `lit:dummy` style placeholder keys for
a self-deployed endpoint (`DUMMY_API_KEY: lit:dummy`), a variable's name and a number
are fine. The value is never shown. This is also how a config evalkit writes (`init -o`) reports a
secret the user gave it: the file keeps it as given, and this rule says so.

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
from evalkit.secrets import is_harmless_value, is_secret_name, looks_secret
from evalkit.secrets.quote import config_secrets


@rule("NEL103", "secret-as-literal", "error")
def check(ctx):
    env_paths = set()
    for section, mapping in ctx.cfg.env_maps():
        env_paths.add(section)
        for name, value in mapping.items():
            if not (isinstance(name, str) and isinstance(value, str)):
                continue
            if not value.startswith("lit:"):
                continue
            if not is_secret_name(name) and not looks_secret(value):
                continue
            if is_harmless_value(value, name) or name.upper().startswith("DUMMY"):
                continue  # a placeholder, a variable's name or a number: no credential
            yield Hit(
                section + (name,),
                f"secret {name} is written as a literal value",
                fix=f"use 'host:{name}' and export {name} in your shell or .env",
            )
    yield from _elsewhere(ctx.cfg.data, (), env_paths)


def _elsewhere(value, path, env_paths):
    """Credentials in the config outside its env var sections (NEL101 and the loop above
    judge those)."""
    if path in env_paths:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _elsewhere(item, path + (key,), env_paths)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _elsewhere(item, path + (index,), env_paths)
    elif isinstance(value, str):
        found = config_secrets(value)  # a command's comments assign nothing
        if found:
            labels = ", ".join(sorted({label for label, _ in found}))
            yield Hit(
                path,
                f"a secret ({labels}) is written into the config (value not shown)",
                fix="pass it from the environment: an env_vars entry 'NAME: host:NAME', "
                "and $NAME where a command needs it",
            )
