r"""An `${...}` the launcher's OmegaConf cannot resolve.

## What it does
Resolves every string of the composed config with OmegaConf's own grammar and
resolvers (plus the launcher's `select_not_null`), including the text of block-scalar
commands and the shell comments inside them.

## Why is this bad
The launcher resolves the whole config before it does anything else. One literal
`${HOME}` in a `|` command, even in a comment line, stops `nel run` with
`Interpolation key 'HOME' not found`; bash forms like `${X:-default}` fail as
`Unsupported interpolation type X`, and `$${X}` is not an escape.

Severity: error, the launcher refuses the config (it resolves every string first).

## Example
```yaml
pre_cmd: |
  # cache lives in ${HOME}/.cache
  export PATH=${HOME}/bin:$PATH
```

## Use instead
Plain `$HOME` (no braces) or `\${HOME}` in block scalars; `${oc.env:VAR,default}` for a
submit-time value; a reference only to keys that exist (`${deployment.port}`).
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL001", "interpolation-error", "error")
def check(ctx):
    broken_defaults = bool(ctx.cfg.defaults_problems)
    for issue in ctx.interpolation_issues:
        if issue.kind != "error":
            continue
        if broken_defaults and "not found" in issue.message:
            continue  # a consequence of the missing group (NEL007), not its own problem
        yield Hit(
            issue.path,
            f"the launcher cannot resolve this value: {issue.message}",
            fix="use $VAR (no braces) or \\${VAR} for shell variables; reference only keys "
            "that exist",
            token=issue.token,
        )
