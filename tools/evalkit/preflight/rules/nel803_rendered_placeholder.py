"""A placeholder survived into the script the launcher renders.

## What it does
With `--with-launcher`, scans each rendered sbatch script for `???`, `<UPPER_CASE>`
tokens and `CHANGEME` outside comment lines.

## Why is this bad
The launcher substitutes only what it knows; a leftover placeholder reaches `sbatch`,
`srun --container-mounts` or the server command and fails there.

Severity: error, the placeholder reaches the cluster and the job fails there.

## Example
`--container-mounts <HOST_HF_CACHE>:/hf-cache` in the rendered script.

## Use instead
Fill the value in the config.
"""

import re

from evalkit.preflight.registry import Hit, rule

TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*>|CHANGEME|\?\?\?")


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
            m = TOKEN.search(line)
            if m:
                yield Hit(
                    (),
                    f"rendered script {index} line {number} still has "
                    f"{m.group(0)!r}: ...{line[max(0, m.start() - 40) : m.end() + 20].strip()}...",
                    line=1,
                    fix="fill that value in the config",
                )
                break
