"""A line that expands a secret while `set -x` tracing is on.

## What it does
Follows `set -x` / `set +x` through each multi-line command (gym parameters that the
line pulls in with `{{config.params.extra.nemo_gym.*}}` included; quoted heredoc bodies
are skipped because they are only written, not run; shell comments, found as bash finds
them, run nothing).

## Why is this bad
`set -x` prints each command after expansion, so `+hf_token=$HF_TOKEN` lands in the
client log in clear text, and from there in MLflow when logs are exported.

Severity: error, the secret is printed into the job log on every cluster.

## Example
```yaml
command: |
  set -ex
  ng_prepare_benchmark +hf_token=$HF_TOKEN
```

## Use instead
```yaml
command: |
  set -ex
  set +x
  ng_prepare_benchmark +hf_token=$HF_TOKEN
  set -x
```
"""

import re

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets.shell import without_comments

SECRET_REF = re.compile(r"\$\{?([A-Za-z_]*(?:TOKEN|API_KEY|SECRET|PASSWORD)[A-Za-z_0-9]*)")
SET = re.compile(r"^\s*set\s+([-+][A-Za-z]+)")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]+)\1")
GYM_REF = re.compile(r"\{\{\s*config\.params\.extra\.nemo_gym\.(\w+)\s*\}\}")


def _gym_params(ctx, path):
    for gym in ctx.cfg.gym_tasks:
        if any(tuple(path[: len(b)]) == tuple(b) for b in gym.bases):
            return gym.raw
    return {}


@rule("NEL305", "secret-traced", "error")
def check(ctx):
    for path, value in ctx.user_strings():
        if "\n" not in value or "set" not in value:
            continue
        params = _gym_params(ctx, path)
        tracing = False
        heredoc_end = None
        # Comments blanked: `# set -x`, `echo ok  # $HF_TOKEN` and `# ... <<EOF` run nothing.
        for line in without_comments(value).splitlines():
            if heredoc_end is not None:
                if line.strip() == heredoc_end:
                    heredoc_end = None
                continue
            m = SET.match(line)
            if m:
                opts = m.group(1)
                if "x" in opts:
                    tracing = opts.startswith("-")
            expanded = GYM_REF.sub(lambda g, p=params: str(p.get(g.group(1), "")), line)
            secret = SECRET_REF.search(expanded)
            if tracing and secret:
                yield Hit(
                    path,
                    f"${secret.group(1)} is expanded while `set -x` traces "
                    "commands: the secret is printed to the log",
                    fix="wrap the line in `set +x` ... `set -x`",
                    token=line.strip()[:40] or None,
                )
                break
            h = HEREDOC.search(line)
            if h:
                heredoc_end = h.group(2)
