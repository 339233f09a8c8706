"""A wrapper config: another tool's file that carries a nel config inside.

## What it does
Recognises a file that nel 0.2.6 cannot read as it stands but another tool resolves
first: it calls resolvers nel does not register (`${art:checkpoint,path}` and the like;
nel has OmegaConf's `oc.*` and its own `select_not_null`). Training frameworks keep such
files and produce the nel config from them with their own CLI. No other rule runs on it.
A file that only lacks a `defaults:` list (a documentation fragment: a hosted endpoint,
a Lepton deployment block, an export block) is not a wrapper: `nel run --config` reads
it as it stands and refuses it, so every rule runs on the sections it has (NEL010 names
the missing ones, NEL005 an `execution.env_vars`).

## Why is this bad
Read as a nel config it gets a page of findings that are all consequences of the wrong
reader (an unsupported interpolation, a walltime the wrapper fills in), and the one true
statement is lost among them.

Severity: warning, `nel run` on this file as it stands fails (`Unsupported
interpolation type art`), but the tool it is written for may resolve it into a sound
config; preflight cannot tell.

## Example
```yaml
run:
  checkpoint: ${art:checkpoint,path}
deployment:
  type: vllm
  checkpoint_path: ${run.checkpoint}
```

## Use instead
Check the nel config the wrapper writes out (its resolved file) with preflight, or
replace the resolver calls with plain values if this file is meant for `nel run`
directly.
"""

from evalkit.config.interpolation import walk_strings
from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.schema_kind import foreign_resolvers, wrapper_reason


def _first_use(data) -> tuple[tuple, str | None]:
    """Where the first foreign resolver is called (path and token), else the file start."""
    names = foreign_resolvers(data)
    if names:
        token = f"${{{names[0]}:"
        for path, value in walk_strings(dict(data)):
            if token in value:
                return path, token
    return (), None


@rule("NEL012", "wrapper-config", "warning", scope="other-schema")
def check(ctx):
    reason = wrapper_reason(ctx.cfg.doc.data)
    if reason is None:
        return
    path, token = _first_use(ctx.cfg.doc.data)
    yield Hit(
        path,
        f"not a plain nel 0.2.6 config: {reason}; it looks like another tool's config "
        "that resolves into one, so no other rule ran",
        fix="run preflight on the nel config the wrapper writes out, or use plain values "
        "if nel reads this file directly",
        line=None if path else 1,
        token=token,
    )
