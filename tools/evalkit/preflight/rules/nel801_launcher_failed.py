"""The real launcher's dry-run fails.

## What it does
With `--with-launcher`, runs `nel run --config FILE --dry-run` with the same `-o`
overrides (through `--nel PATH`, else `scripts/nel-gym.sh` beside the skill, else `nel`
on PATH) and reports its last meaningful error line instead of a traceback.

## Why is this bad
Whatever fails the dry-run fails the real launch too.

Severity: error, the launcher itself refuses the config.

## Example
A `deployment: vllmm` typo: `Could not find 'deployment/vllmm'`.

## Use instead
Fix the reported error; the static rules usually name the same problem with its line.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL801", "launcher-dry-run-failed", "error", scope="launcher")
def check(ctx):
    result = ctx.launcher
    if result is not None and result.returncode != 0:
        yield Hit(
            (),
            f"`nel run --dry-run` failed (exit {result.returncode}): {result.error_line}",
            line=1,
            fix="fix the reported error and rerun preflight",
        )
