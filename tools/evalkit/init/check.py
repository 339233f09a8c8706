"""`init --check`: the written configs checked, and one document an agent can answer from.

written -> decisions (value, reason) -> questions only the user can answer -> preflight
(with the checkpoint and the context) -> the pinned launcher's dry-run -> the commands for
dry-run, canary, full run, validate and score. Each finding and question names the one
section to read.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from evalkit.errors import UsageError
from evalkit.shellword import shell_word

WORKFLOW = "references/launcher-workflow.md"
RULES = "references/rules.md"
CANARY = "-o ++evaluation.nemo_evaluator_config.config.params.limit_samples=10"
# The launching shell needs these for the gym pre_cmd and the unlisted nemo_gym task.
TRUST = {"NEMO_EVALUATOR_TRUST_PRE_CMD": "1", "NEMO_EVALUATOR_TRUST_UNLISTED_TASKS": "1"}
PUBLIC_REGISTRIES = ("vllm/", "docker.io/", "haproxy:", "nvcr.io/nvidia/eval-factory/")
# The dry-run checks the file, not the shell: a variable the launch reads at submit time
# (NEL104) that is unset here gets this value for the dry-run alone, and the document says so.
PLACEHOLDER = "evalkit-dry-run-placeholder"
_UNSET_VARIABLE = re.compile(r"variable '?([A-Za-z_][A-Za-z0-9_]*)'? ")
GET_A_LAUNCHER = (
    "python3 -m venv .nel-venv && .nel-venv/bin/pip install "
    "'nemo-evaluator-launcher[all]==0.2.6', then pass --nel .nel-venv/bin/nel "
    "(scripts/nel-gym.sh does the same by itself where uv or pip can download)"
)


@dataclass
class Question:
    name: str
    question: str
    assumed: str
    read: str

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "question": self.question,
            "assumed": self.assumed,
            "read": self.read,
        }


def decisions(rendered) -> list[dict]:
    """Each value init decided for one config, with its reason."""
    der = rendered.derivation
    p, r = der.plan, der.request
    out = [
        {"name": "mrcr_variant", "value": der.variant.config, "reason": der.variant_source}
        if der.variant is not None
        else None,
        {
            "name": "topology",
            "value": f"{der.num_nodes} node(s) x TP {p.tensor_parallel_size} "
            f"x DP {p.data_parallel_size}",
            "reason": der.topology_note(),
        },  # fmt: skip
        {"name": "max_num_seqs", "value": p.max_num_seqs, "reason": der.seqs_note()},
        {"name": "max_model_len", "value": r.max_model_len, "reason": der.max_model_len.source},
        {
            "name": "kv_cache_dtype",
            "value": der.kv_cache_dtype.value,
            "reason": der.kv_cache_dtype.source,
        },
    ]
    if der.resolved is not None:
        out.append({"name": "parallelism", "value": der.resolved.value,
                    "reason": der.resolved.source})  # fmt: skip
    for name, item in (
        ("expert_parallel", der.expert_parallel),
        ("trust_remote_code", der.trust_remote_code),
        ("long_max_model_len_override", der.long_override),
    ):
        if item is not None:
            out.append({"name": name, "value": True, "reason": item.source})
    return [d for d in out if d is not None]


def questions(task_kind: str, given: dict, defaulted: list[str], images: list[str]):
    """What init could not know: asked of the user, each with what was assumed meanwhile."""
    out = []
    if "walltime" in defaulted:
        out.append(Question(
            "walltime", "What is the GPU partition's per-job time limit (HH:MM:SS)?",
            "04:00:00, a common cap", f'{WORKFLOW} "Step 4"',
        ))  # fmt: skip
    if task_kind == "mrcr" and not given.get("context"):
        out.append(Question(
            "context", "What context length does the model card document, in tokens?",
            "config.json max_position_embeddings (decides the MRCR variant)",
            "references/model-card-research.md",
        ))  # fmt: skip
    for image in images:
        if not image.startswith(PUBLIC_REGISTRIES):
            out.append(Question(
                "image_credentials",
                f"Does SLURM need credentials to pull {image} (enroot .credentials)?",
                "pullable without credentials", f'{WORKFLOW} "Step 7.5"',
            ))  # fmt: skip
    return out


def preflight(path: str, checkpoint_dir: str, context: int | None) -> list[dict]:
    from evalkit.checkpoint import load_checkpoint
    from evalkit.preflight.runner import Options, check_file

    ckpt = load_checkpoint(checkpoint_dir, documented_context=context)
    found = check_file(path, Options(checkpoint=ckpt))
    return [
        {**f.to_json(), "read": f"{RULES} {f.rule}"}
        for f in found
        if f.severity in ("error", "warning")
    ]


def unset_variables(found: list[dict]) -> list[str]:
    """The variables preflight's NEL104 says the launch reads and this shell lacks."""
    names = []
    for finding in found:
        match = _UNSET_VARIABLE.search(finding["message"]) if finding["rule"] == "NEL104" else None
        if match and match[1] not in names and match[1] not in os.environ:
            names.append(match[1])
    return names


def dry_run(
    path: str, nel: str | None, env_file: str | None = None, placeholders: list[str] = ()
) -> dict:
    """The pinned launcher's dry-run: --nel, else scripts/nel-gym.sh, else nel on PATH.
    PLACEHOLDERS (unset submit-time variables) get a stand-in value for this run only."""
    from evalkit.preflight import launcher

    try:
        launcher.find_nel(nel)
    except UsageError as err:
        return {"ran": False, "accepted": None, "why": str(err), "get_one": GET_A_LAUNCHER}
    stand_ins = {name: PLACEHOLDER for name in placeholders}
    saved = {k: os.environ.get(k) for k in {**TRUST, **stand_ins}}
    os.environ.update(TRUST)
    os.environ.update(stand_ins)
    try:
        result = launcher.dry_run(path, [], nel, env_file=env_file)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    out = {
        "ran": True,
        "accepted": result.returncode == 0 and not result.syntax_errors,
        "command": shlex.join(result.command),
    }
    if placeholders:
        out["placeholders"] = list(placeholders)
    if result.returncode != 0:
        out["error"] = result.error_line
        out["read"] = f'{WORKFLOW} "Step 8"'
        if "nel-gym.sh" in out["error"]:  # the wrapper could not build its launcher here
            out["get_one"] = GET_A_LAUNCHER
    for failure in result.syntax_errors:
        out.setdefault("syntax_errors", []).append(
            f"{failure.script} line {failure.line}: {failure.message}"
        )
    return out


def commands(path: str, gym: bool, canary: bool, env_file: str | None = None) -> dict:
    nel = "scripts/nel-gym.sh" if gym else "nel"
    run = f"{nel} run --config {shell_word(path)} --env-file {shell_word(env_file or '.env')}"
    out = {
        "export": "export " + " ".join(f"{k}={v}" for k, v in TRUST.items()),
        "dry_run": f"{run} --dry-run",
        "canary": f"{run} {CANARY}" if canary else None,
        "full_run": run,
        "status": "scripts/evalkit status RUN_DIR --watch 60",
        "validate": "scripts/evalkit validate RUN_DIR",
        "score": "scripts/evalkit score RUN_DIR",
    }
    return {k: v for k, v in out.items() if v is not None}
