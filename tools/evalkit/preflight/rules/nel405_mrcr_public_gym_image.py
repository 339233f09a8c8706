"""MRCR runs on a public `nvcr.io/nvidia/eval-factory/nemo-gym` image.

## What it does
Checks the container of an MRCR gym task.

## Why is this bad
Those images carry `/opt/Gym` without git history, so the pinned Gym commit (which
holds the N3 1M preparation path) cannot be checked out; the bootstrap stops, or an
unpinned Gym scores a different benchmark.

Severity: error, the pinned Gym cannot be checked out there, so the job fails or scores
another benchmark.

## Example
```yaml
tasks:
  - name: nemo_gym
    container: nvcr.io/nvidia/eval-factory/nemo-gym:26.05
```

## Use instead
A git-backed Gym image (where `/opt/Gym` is a git checkout) that the pin can apply to.
"""

from evalkit.preflight.registry import Hit, rule

PUBLIC = "nvcr.io/nvidia/eval-factory/nemo-gym"


@rule("NEL405", "mrcr-public-gym-image", "error")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        path = ("evaluation", "tasks", gym.task_index, "container")
        image = ctx.cfg.get(path)
        if gym.is_mrcr and isinstance(image, str) and image.split(":")[0] == PUBLIC:
            yield Hit(
                path,
                "public nemo-gym images have a non-git /opt/Gym; the MRCR pin cannot apply",
                fix="use a git-backed Gym image",
            )
