"""A hardcoded `ray==<version>` in a command.

## What it does
Looks for `ray==X` / `ray[default]==X` in the code of any command, `pre_cmd`,
`post_cmd` or gym command. Shell comments (`# ... an image carrying ray==2.55.1`) and
prose in other keys are not code and are skipped.

## Why is this bad
The gym sub-servers share the image's Ray. A pin that differs from the image
(e.g. `ray==2.49.2` against an image carrying 2.55.1) makes `uv` unsatisfiable and the
resources server exits at startup.

Severity: error, `uv` cannot satisfy a pin that differs from the image's Ray and the
resources server exits on every cluster; pins in shell comments and prose are not code
and never reported.

## Example
```yaml
command: |
  echo "ray==2.49.2" >> requirements.txt
```

## Use instead
Read the image's version at run time and pin to it:
`ver=$(python -c 'import ray; print(ray.__version__)')`, then `ray[default]==$ver`.
"""

import re

from evalkit.preflight.helpers import command_strings, strip_shell_comments
from evalkit.preflight.registry import Hit, rule

PIN = re.compile(r"\bray(\[[^\]]*\])?==\d[\w.]*")


@rule("NEL304", "hardcoded-ray-pin", "error")
def check(ctx):
    for path, value in command_strings(ctx):
        m = PIN.search(strip_shell_comments(value))
        if m:
            yield Hit(
                path,
                f"hardcoded Ray pin {m.group(0)!r}",
                token=m.group(0),
                fix="derive the version from the image at run time instead",
            )
