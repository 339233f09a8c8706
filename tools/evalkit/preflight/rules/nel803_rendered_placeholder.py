"""A placeholder survived into the script the launcher renders.

## What it does
With `--with-launcher`, scans each rendered sbatch script for `???` and for the
placeholders NEL003 finds in a config (`<HOST_HF_CACHE>`, `<your-endpoint>`, `your-...`
words, `CHANGEME`, `TODO`, `FIXME`: the same test) outside comment lines. Shell
redirections (`2>&1`, `> /tmp/log`, `<<EOF`) have no word inside brackets and pass.

## Why is this bad
The launcher substitutes only what it knows; a leftover placeholder reaches `sbatch`,
`srun --container-mounts` or the server command and fails there.

Severity: error, the placeholder reaches the cluster and the job fails there.

## Example
`--container-mounts <HOST_HF_CACHE>:/hf-cache` or `--served-model-name <your-model>` in
the rendered script.

## Use instead
Fill the value in the config.
"""

from evalkit.preflight.registry import Hit, rule
from evalkit.preflight.rules.nel003_placeholder import find_placeholder


def _token(line: str) -> tuple[str, int] | None:
    """The first blank in a script line and where it starts: `???` or NEL003's own test."""
    token = "???" if "???" in line else find_placeholder(line)
    return (token, line.find(token)) if token else None


@rule("NEL803", "rendered-placeholder", "error", scope="launcher")
def check(ctx):
    result = ctx.launcher
    if result is None:
        return
    for index, script in enumerate(result.scripts):
        for number, line in enumerate(script.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("#") and not stripped.startswith("#SBATCH"):
                continue
            found = _token(line)
            if found:
                token, start = found
                end = start + len(token)
                yield Hit(
                    (),
                    f"rendered script {index} line {number} still has "
                    f"{token!r}: ...{line[max(0, start - 40) : end + 20].strip()}...",
                    line=1,
                    fix="fill that value in the config",
                )
                break
