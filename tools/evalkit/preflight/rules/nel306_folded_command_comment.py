"""A `#` inside a folded (`>`) shell command such as `deployment.command`.

## What it does
Looks for a shell comment, a `#` that begins a word outside quotes as bash reads it, in
any folded scalar whose key is `command`, `base_command`, `pre_cmd` or `post_cmd` (the
gym parameter strings are NEL402). A `#` inside a quoted argument is no comment.

## Why is this bad
YAML joins the lines of a folded scalar into one line and keeps the `#` as text. bash
then reads everything after it as a comment: `--max-num-seqs 32 # note --kv-cache-dtype
fp8` loses `--kv-cache-dtype fp8` without any warning, and the launcher's dry-run passes.

Severity: error, the flags after the `#` are silently dropped, so the server runs a
different configuration than written.

## Example
```yaml
deployment:
  command: >-
    vllm serve /checkpoint
    --max-model-len 32768  # room for the answer
    --enable-expert-parallel
```

## Use instead
Put the comment above the key, outside the scalar.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets.shell import comment_spans

SHELL_KEYS = ("command", "base_command", "pre_cmd", "post_cmd")


@rule("NEL306", "folded-command-comment", "error")
def check(ctx):
    for path, value in ctx.user_strings():
        if not path or path[-1] not in SHELL_KEYS or "#" not in value:
            continue
        if not comment_spans(value):  # a quoted '#' ('{"a": "#1"}') is an argument
            continue
        span = ctx.cfg.doc.spans.get(tuple(path))
        if span is None or span.style != ">":
            continue
        yield Hit(
            path,
            "'#' inside a folded command: YAML joins the lines and bash drops everything "
            "after the '#'",
            fix="move the comment above the key, outside the folded scalar",
            token="#",
        )
