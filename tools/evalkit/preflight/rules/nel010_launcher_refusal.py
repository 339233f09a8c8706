"""A section the launcher needs is missing, or `target` contradicts the deployment.

## What it does
Checks the structure nel 0.2.6 reads before it renders anything: the `execution`,
`deployment` and `evaluation` sections must exist (the launcher's default.yaml is not
merged into a user file, so only what the file's `defaults:` and keys provide exists);
with `deployment: none` the evaluated endpoint must come from `target.api_endpoint`; with
a deployment, `target.api_endpoint` must not carry `url` or `model_id` (the launcher
fills them from the deployment). `evaluation.tasks` must list at least one task. With
the local executor, some task must see at least one env var (0.2.6's local executor
reads an unset variable otherwise).

## Why is this bad
The launcher stops with `Key 'evaluation' is not in struct`, `Key 'target' is not in
struct`, or `when deployment is configured, url field should not exist in
target.api_endpoint`. Severity: error, the launcher refuses the config. An empty task
list is an error with the local executor (0.2.6 stops with an `UnboundLocalError`) and a
warning elsewhere (the launcher accepts it and evaluates nothing). A local run with no
env var in any group stops with `UnboundLocalError: ... 'export_reexport_cmd'` (a 0.2.6
bug in executors/local/executor.py): an error, the launcher refuses it.

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


def any_env_var(cfg) -> bool:
    """True when the launcher collects at least one env var for some job (secrets file)."""
    if any(values for _, values in cfg.env_maps()):
        return True
    return bool(cfg.get(("target", "api_endpoint", "api_key_name")))


@rule("NEL010", "launcher-refusal", "error")
def check(ctx):
    cfg = ctx.cfg
    for section, fix in SECTIONS.items():
        if cfg.get((section,)) is None:
            yield Hit(
                (section,),
                f"no `{section}` section: the launcher stops with "
                f"\"Key '{section}' is not in struct\"",
                fix=fix,
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
    if cfg.execution_type == "local" and cfg.tasks and not any_env_var(cfg):
        yield Hit(
            ("execution", "type"),
            "a local run with no env var in any group: nel 0.2.6's local executor stops with "
            "\"UnboundLocalError: ... 'export_reexport_cmd'\"",
            fix="give the evaluation any env var, e.g. evaluation.env_vars: {HF_HOME: "
            "lit:/root/.cache/huggingface}, or a target.api_endpoint.api_key_name",
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
