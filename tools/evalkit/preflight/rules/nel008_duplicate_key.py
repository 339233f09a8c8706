"""The same key written twice in one mapping.

## What it does
Reports every repeated key in a YAML mapping, with the line of the repeat.

## Why is this bad
Hydra refuses the file (`found duplicate key`); plain YAML readers keep the last one
silently, so two tools can read two different configs from the same file.

Severity: error, Hydra refuses the config (`found duplicate key`).

## Example
```yaml
execution:
  walltime: "02:00:00"
execution:
  account: team
```

## Use instead
Merge both into one mapping.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL008", "duplicate-key", "error")
def check(ctx):
    for path, line in ctx.cfg.doc.duplicates:
        yield Hit(
            path,
            f"key '{path[-1]}' is written more than once",
            line=line,
            fix="keep one copy of the key and merge the values",
        )
