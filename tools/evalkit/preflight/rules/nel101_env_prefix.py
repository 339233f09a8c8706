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

import re

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets import is_harmless_value, is_secret_name, looks_secret

PREFIXES = ("host:", "lit:", "runtime:")
# The launcher's own reading of a bare value (nel-migrate-config in nemo-evaluator-launcher
# 0.2.6, file cli/migrate_config.py): a name (`HF_TOKEN`, `$HF_TOKEN`, `fast`) was a host
# variable, anything else a literal. NAME is its pattern (ASCII, unlike str.isidentifier).
NAME = re.compile(r"\$?([A-Za-z_][A-Za-z0-9_]*)")
OC_ENV = re.compile(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)\}")


# Under a secret name only a shell-style name or a placeholder (`dummy`, `EMPTY`) is taken
# for a name; `hf_abc` or `Passw0rd` is more likely the secret itself.
SHELL_NAME = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|[A-Z_][A-Z0-9_]*|\$\{oc\.env:[A-Za-z_]\w*\}")


def prefixed(name: str, value, written: str) -> str | None:
    """The prefixed value nel-migrate-config gives `value` (`written`: its text in the file),
    or None where that is not certain: an interpolation other than a bare `${oc.env:VAR}`
    (its old meaning depends on what it resolves to; a `,default` would be dropped), text
    with surrounding spaces, a credential-shaped value, no scalar at all, and under a
    secret name anything but a shell-style name or a placeholder."""
    if value is None or isinstance(value, (dict, list)) or looks_secret(value):
        return None
    if is_secret_name(name) and not (
        SHELL_NAME.fullmatch(written) or is_harmless_value(written, name)
    ):
        return None
    if isinstance(value, str):
        env = OC_ENV.fullmatch(value)
        if env:
            return f"host:{env.group(1)}"
        if "${" in value or value != value.strip() or not value:
            return None
    name = NAME.fullmatch(written) if isinstance(value, str) else None
    return f"host:{name.group(1)}" if name else f"lit:{written}"


def _as_written(ctx, path) -> str:
    """A non-string value as the file spells it (`0.10`, `true`), which `lit:` keeps."""
    span = ctx.cfg.doc.spans.get(path)
    value = ctx.cfg.get(path)
    if span is None:
        return str(value).lower() if isinstance(value, bool) else str(value)
    return ctx.cfg.doc.text[span.start : span.end].strip("'\"")


@rule("NEL101", "env-value-prefix", "error")
def check(ctx):
    for section, mapping in ctx.cfg.env_maps():
        if section == ("execution", "env_vars"):
            continue  # NEL005 reports the whole section
        for name, value in mapping.items():
            if isinstance(value, str) and (value == "???" or value.startswith(PREFIXES)):
                continue
            written = value if isinstance(value, str) else _as_written(ctx, section + (name,))
            guess = prefixed(name, value, written)
            if is_secret_name(name) or looks_secret(value):
                # Never echo a credential, and never suggest writing it into the config.
                fix = f"write it as 'host:{name}' and export {name} in your shell"
                if guess:  # a name: the variable it names
                    fix = "write it as 'host:' before the name it holds (a bare name was "
                    fix += "read from your shell) and export that variable"
                yield Hit(
                    section + (name,),
                    f"env value of {name} has no host:/lit:/runtime: prefix (value not shown)",
                    fix=fix,
                )
                continue
            shown = value if isinstance(value, str) else repr(value)
            yield Hit(
                section + (name,),
                f"env value {shown!r} has no host:/lit:/runtime: prefix",
                fix=f"write it as '{guess}'" if guess else "add host:, lit: or runtime:",
            )
