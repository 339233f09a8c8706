"""A job script rendered by the launcher's dry-run is not valid bash.

## What it does
With `--with-launcher`, runs `bash -n` on each file the dry-run prints (the sbatch
`run.sub` of each task, or the local executor's `run.sh`), each as a whole, and on the
`pre_cmd`/`post_cmd` files they embed. The finding names the script, the line within it
and that line's text.

## Why is this bad
A stray quote or an unterminated heredoc in a command only breaks once the job starts
on the cluster, after the queue wait.

Severity: error, the job script fails on every cluster.

## Example
```yaml
pre_cmd: echo "unterminated
```

## Use instead
Balance quotes and heredocs in every command the config carries.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets.quote import quote


@rule("NEL802", "rendered-script-syntax", "error", scope="launcher")
def check(ctx):
    result = ctx.launcher
    if result is None:
        return
    for failure in result.syntax_errors:
        where = f" at line {failure.line}" if failure.line is not None else ""
        shown = f"; the line reads: {quote(failure.source, 160)}" if failure.source else ""
        yield Hit(
            (),
            f"rendered script {failure.script} fails `bash -n`{where}: {failure.message}{shown}",
            line=1,
            fix="balance the quotes/heredocs of the command it names",
        )
