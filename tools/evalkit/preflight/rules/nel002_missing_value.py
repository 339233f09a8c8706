"""A mandatory value still `???`.

## What it does
Lists every `???` value in the composed config at once (bundled defaults included,
e.g. slurm/default's `hostname`, `account`, `output_dir`). With `--template` they are
reported as info: a shipped template is meant to carry them.

## Why is this bad
The launcher stops at the first `Missing mandatory value` with a traceback, so fixing
them one dry-run at a time costs a minute each.

Severity: error, the launcher refuses the config; info with `--template`, where blanks
are expected.

## Example
```yaml
execution:
  account: ???
```

## Use instead
Fill each value in the file, or pass it at launch with the same `-o` overrides you give
preflight: `-o execution.account=my-account`.
"""

from evalkit.config.yamldoc import override_path
from evalkit.preflight.registry import Hit, rule


@rule("NEL002", "missing-mandatory-value", "error")
def check(ctx):
    for path, value in ctx.strings():
        if value == "???":
            yield Hit(
                path,
                "value is ??? (fill before launch)",
                fix="set it in the file or pass -o " + override_path(path) + "=...",
                severity="info" if ctx.template else None,
            )
