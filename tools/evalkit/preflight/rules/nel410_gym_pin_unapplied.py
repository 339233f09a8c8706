"""A gym task's own `command` never reads `install_on_the_fly`, so its pin applies nowhere.

## What it does
For each gym task that pins Gym (`install_on_the_fly.commit`) and replaces the harness
command with a `command:` of its own, checks that the command refers to
`install_on_the_fly` (the shipped templates read the pin and URL as
`{{config.params.extra.nemo_gym.install_on_the_fly.commit}}` and check it out).

## Why is this bad
A custom command that only does `cd /opt/Gym` and runs the `ng_*` tools scores with
whatever Gym the image baked in. The pin in the config then documents a version the run
never used, and a comparison with the reference run (made at the pin) may compare two Gym
versions. Found in a hand-edited MRCR config whose bootstrap block had been dropped.

Severity: warning, the image may already carry the pinned Gym (a git-backed image built
at the pin), in which case the score is sound; `evalkit validate` reads the Gym commit the
job logged and fails a run whose commit differs.

## Example
```yaml
nemo_gym:
  install_on_the_fly:
    commit: a431501aa294f3237d472aaf58dd1e5026156ea8
  command: |
    cd /opt/Gym
    ng_e2e_collect_rollouts {{config.params.extra.nemo_gym.collect_rollout_params}}
```

## Use instead
Keep the template's bootstrap block, which checks the pin out and logs the commit:
```yaml
  command: |
    gym_pin='{{config.params.extra.nemo_gym.install_on_the_fly.commit}}'
    cd /opt/Gym && git checkout --quiet "$gym_pin"
    echo "=== NeMo Gym commit ==="; git rev-parse HEAD
    ng_e2e_collect_rollouts {{config.params.extra.nemo_gym.collect_rollout_params}}
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL410", "gym-pin-unapplied", "warning")
def check(ctx):
    for gym in ctx.cfg.gym_tasks:
        install = gym.raw.get("install_on_the_fly")
        commit = install.get("commit") if isinstance(install, dict) else None
        command = gym.command
        if commit in (None, "???") or not command.strip():
            continue
        if "install_on_the_fly" in command:
            continue
        yield Hit(
            gym.path("command"),
            "the command never reads install_on_the_fly, so the Gym pin "
            f"{str(commit)[:12]} applies nowhere: the run scores with the image's own Gym",
            fix="keep the template's bootstrap block (it checks the pin out and logs the "
            "commit), or remove the pin if the image is built at it",
        )
