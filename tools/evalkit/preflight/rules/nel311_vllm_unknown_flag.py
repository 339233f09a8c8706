"""A `vllm serve` flag that the image's vLLM version does not have.

## What it does
Finds each `vllm serve` call in `deployment.command` (after `${deployment.*}` resolves,
across folded and literal blocks, ignoring shell comments) and looks every flag up in the
argument table of the vLLM version named by `deployment.image`
(`tools/evalkit/data/vllm-<version>-serve.json`). Underscores, `--no-` forms, aliases
(`-tp`) and `--json-flag.key` spellings count as vLLM counts them. An unknown flag or an
abbreviation that matches several flags is an error, with a did-you-mean; an abbreviation
that matches one flag (`--max-num-seq`) is a warning. Against a stand-in version (see
NEL310) errors are warnings.

## Why is this bad
vLLM's parser stops at the first flag it does not know: every server in the allocation
exits at startup, after the queue wait, while the launcher's dry-run passes. Flags are
renamed and removed between vLLM versions, so a command copied from another image's docs
fails the same way.

Severity: error (the server exits on every cluster); warning for an abbreviation that
matches one flag only (argparse accepts it) and whenever the table is a stand-in for an
unknown version.

## Example
```yaml
deployment:
  image: vllm/vllm-openai:v0.26.0
  command: vllm serve /checkpoint --max-modle-len 131072
```

## Use instead
`--max-model-len 131072`: the spelling `vllm serve --help=all` of that version lists.
"""

from evalkit.config.vllm_cli import check_command
from evalkit.preflight.registry import Hit, rule

KINDS = {"unknown": None, "ambiguous": None, "abbreviation": "warning"}


def command_path(cfg) -> tuple:
    """Where the serving flags are written: the command, else the keys it is built from."""
    for key in ("command", "extra_args", "base_command"):
        if cfg.written(("deployment", key)):
            return ("deployment", key)
    return ("deployment", "command")


def problems(ctx, kinds: dict[str, str | None]):
    """Hits for the problems of the given kinds; kind -> severity (None: the rule's)."""
    if not ctx.deploys:
        return
    image = ctx.cfg.get(("deployment", "image"))
    choice, found = check_command(ctx.cfg.serve_command, image if isinstance(image, str) else None)
    path = command_path(ctx.cfg)
    for problem in found:
        if problem.kind not in kinds:
            continue
        severity = kinds[problem.kind]
        if not choice.exact and severity in (None, "error"):
            severity = "warning"  # checked against the nearest known version only
        yield Hit(path, problem.message, fix=problem.fix, severity=severity, token=problem.flag)


@rule("NEL311", "vllm-unknown-flag", "error")
def check(ctx):
    yield from problems(ctx, KINDS)
