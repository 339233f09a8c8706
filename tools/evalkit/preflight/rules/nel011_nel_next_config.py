"""A nel-next config: preflight checks nel 0.2.6 configs and leaves this one alone.

## What it does
Recognises a config of nel-next (nemo-evaluator 0.4 with harbor, run through
`scripts/nel-next.sh`): top-level `services` and `benchmarks` and none of the 0.2.6
sections (`defaults`, `execution`, `deployment`, `evaluation`). No other rule runs on
it.

## Why is this bad
It is not bad; it is a different schema. Read against nel 0.2.6 such a file gets a
dozen findings that are all true of the wrong tool (no `execution` section, unknown
`services`, `${VAR}` the 0.2.6 resolver cannot see), and a repository that keeps both
kinds of config behind one pre-commit hook would fail on every one of them.

Severity: info, nothing is wrong with the file as far as preflight can tell; nel-next's
own dry-run is its check.

## Example
```yaml
services:
  model:
    type: vllm
benchmarks:
  - name: terminal_bench_2_1
```

## Use instead
Check it with nel-next's dry-run: `scripts/nel-next.sh eval run FILE --dry-run`
(references/nel-next.md), or `evalkit preflight FILE --with-launcher`, which runs that
dry-run once `scripts/nel-next.sh --setup-only` has built the environment (it never hands
a nel-next config to the 0.2.6 launcher).
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.schema_kind import is_nel_next


@rule("NEL011", "nel-next-config", "info", scope="other-schema")
def check(ctx):
    if not is_nel_next(ctx.cfg.doc.data):
        return
    yield Hit(
        ("services",),
        "a nel-next config (top-level services and benchmarks): preflight checks nel 0.2.6 "
        "configs only, so no other rule ran",
        fix="check it with `scripts/nel-next.sh eval run FILE --dry-run` (references/nel-next.md)",
    )
