"""A job script rendered by the launcher's dry-run is not valid bash.

## What it does
With `--with-launcher`, runs `bash -n` on each rendered sbatch script.

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


@rule("NEL802", "rendered-script-syntax", "error", scope="launcher")
def check(ctx):
    result = ctx.launcher
    if result is None:
        return
    for index, message in result.syntax_errors:
        yield Hit(
            (),
            f"rendered script {index} fails `bash -n`: {message}",
            line=1,
            fix="balance the quotes/heredocs of the command it names",
        )
