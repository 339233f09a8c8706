"""An env-var value without `host:`, `lit:` or `runtime:`.

## What it does
Checks every `env_vars` map (top level, deployment, evaluation, each task, export).

## Why is this bad
0.2.6 requires an explicit prefix and refuses the config (`Env var value 'HF_TOKEN'
must have an explicit prefix`), or, for a non-string value, fails validation.

Severity: error, the launcher refuses an unprefixed env-var value.

## Example
```yaml
evaluation:
  env_vars:
    HF_TOKEN: HF_TOKEN
```

## Use instead
```yaml
evaluation:
  env_vars:
    HF_TOKEN: host:HF_TOKEN       # read from your shell at submit time
    HF_HOME: lit:/hf-cache        # a constant
    NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID   # read on the compute node
```
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets import is_secret_name, looks_secret

PREFIXES = ("host:", "lit:", "runtime:")


@rule("NEL101", "env-value-prefix", "error")
def check(ctx):
    for section, mapping in ctx.cfg.env_maps():
        if section == ("execution", "env_vars"):
            continue  # NEL005 reports the whole section
        for name, value in mapping.items():
            if isinstance(value, str) and (value == "???" or value.startswith(PREFIXES)):
                continue
            if is_secret_name(name) or looks_secret(value):
                # Never echo a credential, and never suggest writing it into the config.
                yield Hit(
                    section + (name,),
                    f"env value of {name} has no host:/lit:/runtime: prefix (value not shown)",
                    fix=f"write it as 'host:{name}' and export {name} in your shell",
                )
                continue
            shown = value if isinstance(value, str) else repr(value)
            guess = (
                f"host:{value}"
                if isinstance(value, str) and value.isidentifier()
                else (f"lit:{value}")
            )
            yield Hit(
                section + (name,),
                f"env value {shown!r} has no host:/lit:/runtime: prefix",
                fix=f"write it as '{guess}'",
            )
