"""A placeholder such as `<HOST_HF_CACHE>` or `CHANGEME` left in a value.

## What it does
Looks for `<UPPER_CASE>` tokens and the word `CHANGEME` in keys and values (YAML
comments are not values and are ignored; shell comment lines inside commands too).

## Why is this bad
The launcher only knows `???`. Any other placeholder passes its dry-run and lands in
the job script: a mount source `<HOST_HF_CACHE>`, `--reasoning-parser <PARSER>`, an
MLflow experiment named `CHANGEME`. The job then fails on the cluster, or worse,
exports results under a wrong name.

Severity: error, the job fails on every cluster (the placeholder reaches the script as a
path, an account or a flag) although the launcher accepts it; info with `--template`,
where a template's placeholders are its blanks, as `???` is for NEL002.

## Example
```yaml
execution:
  mounts:
    deployment:
      <HOST_HF_CACHE>: /hf-cache
```

## Use instead
Write the real value; in shared templates use `???` for anything the user must fill.
"""

import re

from evalkit.preflight.registry import Hit, rule

TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*>|CHANGEME")


def _walk_keys(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,), key
            yield from _walk_keys(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk_keys(value, path + (i,))


@rule("NEL003", "placeholder-left", "error")
def check(ctx):
    severity = "info" if ctx.template else None
    for path, key in _walk_keys(ctx.cfg.data):
        if isinstance(key, str) and TOKEN.search(key):
            yield Hit(
                path,
                f"placeholder in key {key!r}",
                fix="replace it with the real value",
                severity=severity,
            )
    for path, value in ctx.strings():
        for line in value.splitlines() or [value]:
            if line.lstrip().startswith("#"):
                continue
            m = TOKEN.search(line)
            if m:
                yield Hit(
                    path,
                    f"placeholder {m.group(0)!r} left in the value",
                    fix="replace it with the real value (templates use ??? for blanks)",
                    token=m.group(0),
                    severity=severity,
                )
                break
