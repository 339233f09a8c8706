"""An image pinned to `:latest` (or to no tag at all).

## What it does
Checks `deployment.image` (the vllm group's default is `vllm/vllm-openai:latest`),
every task `container`, and the HAProxy image when more than one instance uses it.

## Why is this bad
`latest` moves. A baseline and a candidate run a week apart then use different server
or harness versions, and the comparison measures the upgrade, not the checkpoint.

Severity: warning, the run works today, but a later pull can change the server or
harness between baseline and candidate.

## Example
```yaml
deployment:
  image: vllm/vllm-openai:latest
```

## Use instead
```yaml
deployment:
  image: vllm/vllm-openai:v0.26.0
```
"""

from evalkit.preflight.helpers import image_tag
from evalkit.preflight.registry import Hit, rule


@rule("NEL207", "unpinned-image", "warning")
def check(ctx):
    images = (
        list(ctx.cfg.images())
        if ctx.deploys
        else [(p, v) for p, v in ctx.cfg.images() if p[0] != "deployment"]
    )
    proxy = ("execution", "proxy", "image")
    if (ctx.cfg.topology.num_instances or 1) > 1 and isinstance(ctx.cfg.get(proxy), str):
        images.append((proxy, ctx.cfg.get(proxy)))
    for path, image in images:
        tag = image_tag(image)
        if tag in ("", "latest"):
            inherited = "" if ctx.cfg.written(path) else " (bundled default)"
            yield Hit(
                path,
                f"image {image!r} is not pinned to a version{inherited}",
                fix="pin an exact tag (e.g. vllm/vllm-openai:v0.26.0)",
            )
