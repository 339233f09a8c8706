"""The deployment image names no vLLM version that evalkit has an argument table for.

## What it does
When `deployment.command` runs `vllm serve`, reads the version from the
`deployment.image` tag (`vllm/vllm-openai:v0.26.0`, or any registry whose tag starts
with a version, such as `registry.example.org/team/vllm:0.26.0-cu130`). When the tag
carries no version (`latest`, a calendar tag) or one without a table in
`tools/evalkit/data/`, says so once and names the known version NEL311-NEL314 check
against instead; their errors then become warnings.

## Why is this bad
It is a note, not a fault: flags and parser names differ between vLLM versions, so a
check against another version can be wrong either way.

Severity: info, once per config. The findings of NEL311-NEL314 are then checked against
the nearest known version and drop to warnings.

## Example
```yaml
deployment:
  image: vllm/vllm-openai:v0.27.1
  command: vllm serve /checkpoint --max-model-len 131072
```

## Use instead
Pin an image whose version has a table, or add the table
(`python tools/dev/gen_vllm_args.py vllm-<version>-*.whl`).
"""

from evalkit.config.vllm_cli import check_command, known_versions, serve_invocations
from evalkit.preflight.registry import Hit, rule


@rule("NEL310", "vllm-version-unknown", "info")
def check(ctx):
    if not ctx.deploys or not serve_invocations(ctx.cfg.serve_command):
        return
    image = ctx.cfg.get(("deployment", "image"))
    choice, _ = check_command(ctx.cfg.serve_command, image if isinstance(image, str) else None)
    if choice.exact:
        return
    named = (
        f"vLLM {choice.image_version}, which has no argument table"
        if choice.image_version
        else "no vLLM version"
    )
    yield Hit(
        ("deployment", "image"),
        f"image {image!r} names {named} (known: {', '.join(known_versions())}); "
        f"vllm serve flags are checked against {choice.table.version}, as warnings",
        fix="pin a known vLLM version, or generate its table with tools/dev/gen_vllm_args.py",
    )
