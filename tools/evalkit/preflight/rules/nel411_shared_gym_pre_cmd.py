"""An `evaluation.pre_cmd` that needs the Gym image reaches tasks that run elsewhere.

## What it does
Reads `evaluation.pre_cmd` as bash reads it (comments skipped) for what only a NeMo Gym
container has: the Gym tree and its venv (`/opt/Gym`), Gym's own tools (`ng_*`), and
`uv`, which the Gym images carry for Gym's venvs (the other harness images need not).
Names every task that inherits that `pre_cmd` (it has none of its own) and is not a Gym
task (`nemo_gym`, or a container whose image name says gym). When the config has no Gym
task at all (a Gym step pasted into a config of other harnesses), every task it reaches
is named, as an error.

## Why is this bad
nel 0.2.6 gives each task its own `pre_cmd`, else the evaluation's (nemo_evaluator_launcher
0.2.6, `common/helpers.py` lines 275-277: `user_task_config.get("pre_cmd") or
cfg.evaluation.get("pre_cmd")`), and runs it in that task's container before the harness.
A Gym install step then runs in the simple-evals or lm-eval container too, where there is
no `/opt/Gym` and often no `uv`: that task stops at once ("uv: command not found") and
its GPU allocation is spent on a failed start.

Severity: warning beside a Gym task, an image may carry the path or tool after all (a
custom image built on the Gym one), and where it does the step only wastes time; on the
stock images the other tasks fail. Error when the config has no Gym task: the step was
meant for a container that is not there, and every task that inherits it stops at it.

## Example
```yaml
evaluation:
  pre_cmd: uv pip install --python /opt/Gym/.venv/bin/python tiktoken
  tasks:
    - name: nemo_gym
    - name: simple_evals.gpqa_diamond
```

## Use instead
Move it onto the task that needs it (and give the Gym task its own config, NEL401):
```yaml
evaluation:
  tasks:
    - name: nemo_gym
      pre_cmd: uv pip install --python /opt/Gym/.venv/bin/python tiktoken
    - name: simple_evals.gpqa_diamond
```
"""

import re

from evalkit.preflight.registry import Hit, rule
from evalkit.secrets.shell import without_comments

# What only a Gym container has, as a pre_cmd names it: (pattern, what it is).
GYM_ONLY = (
    (re.compile(r"/opt/Gym\b"), "/opt/Gym (the Gym tree and venv)"),
    (re.compile(r"(?<![\w./-])ng_\w+"), "Gym's ng_* tools"),
    (re.compile(r"(?:^|(?<=[\s;&|(]))uv(?=\s)"), "uv"),
)


def _is_gym(task: dict) -> bool:
    name = str(task.get("name", ""))
    container = str(task.get("container") or "")
    return name == "nemo_gym" or name.endswith(".nemo_gym") or "gym" in container.lower()


@rule("NEL411", "shared-gym-pre-cmd", "warning")
def check(ctx):
    tasks = [t for _, t in ctx.cfg.tasks]
    pre_cmd = ctx.cfg.get(("evaluation", "pre_cmd"))
    if not tasks or not isinstance(pre_cmd, str) or not pre_cmd.strip():
        return
    code = without_comments(pre_cmd)
    needs = [what for pattern, what in GYM_ONLY if pattern.search(code)]
    if not needs:
        return
    inherit = [t for t in tasks if not t.get("pre_cmd")]
    reached = [str(t.get("name")) for t in inherit if not _is_gym(t)]
    if not reached:
        return
    if not any(_is_gym(t) for t in tasks):
        yield Hit(
            ("evaluation", "pre_cmd"),
            f"evaluation.pre_cmd needs {' and '.join(needs)}, which only a NeMo Gym "
            "container has, and this config has no Gym task: nel 0.2.6 runs it before "
            f"every task without a pre_cmd of its own ({', '.join(reached)}), and each "
            "stops at that step",
            fix="remove it (it belongs in a Gym task's config), or replace it with a step "
            "these tasks' images can run",
            severity="error",
        )
        return
    if not any(_is_gym(t) for t in inherit):
        return  # the Gym task has a pre_cmd of its own
    yield Hit(
        ("evaluation", "pre_cmd"),
        f"evaluation.pre_cmd needs {' and '.join(needs)}, which only the Gym task's "
        "container has; nel 0.2.6 runs it before every task without a pre_cmd of its own, "
        f"so also before {', '.join(reached)}",
        fix="move it onto the task that needs it (`pre_cmd:` under the nemo_gym entry of "
        "evaluation.tasks), or give the Gym task its own config",
    )
