"""A section the launcher needs is missing, or `target` contradicts the deployment.

## What it does
Checks the structure nel 0.2.6 reads before it renders anything: the `execution`,
`deployment` and `evaluation` sections must exist (the launcher's default.yaml is not
merged into a user file, so only what the file's `defaults:` and keys provide exists; a
documentation fragment with no `defaults:` list has only its own sections);
with `deployment: none` the evaluated endpoint must come from `target.api_endpoint`; with
a deployment, `target.api_endpoint` must not carry `url` or `model_id` (the launcher
fills them from the deployment). `evaluation.tasks` must list at least one task. With
the local executor, the first task must see at least one env var (its own, the
deployment's or the exporter's; 0.2.6's local executor reads an unset variable
otherwise), and `execution.mode: parallel` needs `deployment: none`.

## Why is this bad
The launcher stops with `Key 'evaluation' is not in struct`, `Key 'target' is not in
struct`, or `when deployment is configured, url field should not exist in
target.api_endpoint`. Severity: error, the launcher refuses the config. An empty task
list is an error with the local executor (0.2.6 stops with an `UnboundLocalError`) and a
warning elsewhere (the launcher accepts it and evaluates nothing). A local run with no
env var for its first task stops with `UnboundLocalError: ... 'export_reexport_cmd'`
(a 0.2.6 bug in executors/local/executor.py), even when a later task has some; the local
executor refuses `mode: parallel` with a deployment ("Execution mode 'parallel' is not
supported with deployment type: vllm"). Both are errors: the launcher refuses them.

## Example
```yaml
defaults:
  - execution: local
  - deployment: vllm
target:
  api_endpoint:
    url: http://localhost:8000/v1/chat/completions
```

## Use instead
Drop `target.api_endpoint.url` and `model_id` when the launcher deploys the model, or use
`deployment: none` to evaluate an endpoint that is already running.
"""

from evalkit.preflight.registry import Hit, rule

SECTIONS = {
    "execution": "add `- execution: local` (or slurm/default) to defaults",
    "deployment": "add `- deployment: none` (or vllm, sglang, ...) to defaults",
    "evaluation": "add an `evaluation:` section with `tasks:`",
}


# Set in the launching shell, these reach every task's env (nemo_evaluator.telemetry).
TELEMETRY_VARS = (
    "NEMO_EVALUATOR_TELEMETRY_SESSION_ID",
    "NEMO_EVALUATOR_TELEMETRY_LEVEL",
    "NEMO_EVALUATOR_TELEMETRY_ENDPOINT",
)


def first_task_has_env(cfg, env) -> bool:
    """The condition under which 0.2.6's local executor binds `export_reexport_cmd`.

    Its task loop (executors/local/executor.py) builds the secrets file, and binds that
    name, only when the task has env vars in some group: its own (top-level, evaluation
    and task env_vars, the api_key_name, telemetry variables of the shell), the
    deployment's (top-level and deployment env_vars, when it deploys) or the exporter's
    (top-level and export env_vars). Later tasks reuse the first task's binding, so only
    the first task decides.
    """
    if cfg.get(("env_vars",)) or cfg.get(("evaluation", "env_vars")):
        return True
    first = cfg.tasks[0][1] if cfg.tasks else {}
    if first.get("env_vars") or cfg.get(("target", "api_endpoint", "api_key_name")):
        return True
    if cfg.deployment_type not in (None, "none") and cfg.get(("deployment", "env_vars")):
        return True
    if cfg.get(("export", "env_vars")):
        return True
    return any(env.get(name) for name in TELEMETRY_VARS)


@rule("NEL010", "launcher-refusal", "error")
def check(ctx):
    cfg = ctx.cfg
    bare = "defaults" not in cfg.doc.data  # a fragment: nel composes nothing into it
    for section, fix in SECTIONS.items():
        if cfg.get((section,)) is None:
            yield Hit(
                (section,),
                f"no `{section}` section: the launcher stops with "
                f"\"Key '{section}' is not in struct\""
                + (" (the file has no `defaults:` list, so nothing provides it)" if bare else ""),
                fix=fix,
                line=1 if bare else None,
            )
    evaluation = cfg.get(("evaluation",))
    if isinstance(evaluation, dict) and not evaluation.get("tasks"):
        yield Hit(
            ("evaluation", "tasks") if "tasks" in evaluation else ("evaluation",),
            "no tasks to evaluate"
            + (
                " (the local executor stops with an UnboundLocalError)"
                if cfg.execution_type == "local"
                else ""
            ),
            fix="list at least one task under evaluation.tasks",
            severity="error" if cfg.execution_type == "local" else "warning",
        )
    if cfg.execution_type == "local" and cfg.tasks and not first_task_has_env(cfg, ctx.env):
        yield Hit(
            ("evaluation", "tasks", cfg.tasks[0][0]),
            "the first task has no env var in any group: nel 0.2.6's local executor stops "
            "with \"UnboundLocalError: ... 'export_reexport_cmd'\" (a later task's env "
            "vars do not help)",
            fix="give the first task an env var (or evaluation.env_vars, for all tasks), "
            "e.g. HF_HOME: lit:/root/.cache/huggingface, or a target.api_endpoint.api_key_name "
            "(--fix --unsafe-fixes adds an inert one, stated as the workaround it is)",
        )
    if cfg.execution_type == "local" and ctx.deploys:
        mode = cfg.resolved(("execution", "mode"), "parallel")
        if mode == "parallel":
            yield Hit(
                ("execution", "mode"),
                "execution.mode 'parallel' with a deployment: the local executor refuses it "
                f'("not supported with deployment type: {cfg.deployment_type}")',
                fix="set execution.mode: sequential (the local executor's default; "
                "--fix --unsafe-fixes does), or deployment: none for a running endpoint",
            )
    deployment = cfg.deployment_type
    endpoint = cfg.get(("target", "api_endpoint"))
    if deployment == "none":
        if not isinstance(endpoint, dict):
            yield Hit(
                ("target",),
                "`deployment: none` but no `target.api_endpoint`: the launcher stops with "
                "\"Key 'target' is not in struct\"",
                fix="add target.api_endpoint with url, model_id (and api_key_name)",
            )
    elif deployment is not None and isinstance(endpoint, dict):
        for key in ("url", "model_id"):
            if key in endpoint:
                yield Hit(
                    ("target", "api_endpoint", key),
                    f"when deployment is configured, {key} field should not exist in "
                    "target.api_endpoint (the launcher refuses it)",
                    fix=f"delete target.api_endpoint.{key}; the deployment provides it",
                )
