"""`${deployment.*}` or `${evaluation.*}` inside `export`.

## What it does
Looks for those references in every string under `export`.

## Why is this bad
Auto-export resolves the export block in a separate job whose config has no
`deployment` or `evaluation` nodes; the reference fails there and nothing is exported,
after the evaluation itself succeeded.

Severity: error, the export job fails on every cluster after the evaluation has
finished.

## Example
```yaml
export:
  mlflow:
    experiment_name: ${deployment.served_model_name}
```

## Use instead
Literal values (or `${oc.env:VAR}`) in `export`.
"""

import re

from evalkit.config.interpolation import walk_strings
from evalkit.preflight.registry import Hit, rule

REF = re.compile(r"\$\{(deployment|evaluation)\.[^}]*\}")


@rule("NEL502", "export-run-reference", "error")
def check(ctx):
    export = ctx.cfg.get(("export",))
    for path, value in walk_strings(export, ("export",)):
        m = REF.search(value)
        if m:
            yield Hit(
                path,
                f"{m.group(0)} cannot resolve in the auto-export job",
                fix="write the literal value (or ${oc.env:VAR})",
                token=m.group(0),
            )
