"""Fill one shipped template with facts and derived values, keeping its lines and comments."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalkit.checkpoint import Checkpoint
from evalkit.config.command import ServeFlags
from evalkit.config.textedit import Doc, EditError
from evalkit.init import comments
from evalkit.init.catalog import Output, Task, recipe_fragment
from evalkit.init.derive import Derivation, derive

NOTE = "init: "
CMD = ("deployment", "command")
PARAMS = ("evaluation", "nemo_evaluator_config", "config", "params")
ADAPTER = ("evaluation", "nemo_evaluator_config", "target", "api_endpoint", "adapter_config")
INSTRUCT_MAX_NEW_TOKENS = 16384  # the templates' fallback for instruct models
HF_CACHE_MOUNT, UV_CACHE_MOUNT = "/hf-cache", "/uv-cache"
GDPVAL_SIF_MOUNT, GDPVAL_REF_MOUNT = "/gdpval/sif", "/gdpval_ref_files"


@dataclass
class Rendered:
    output: Output
    text: str
    derivation: Derivation | None
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _task_params(i: int) -> tuple:
    return ("evaluation", "tasks", i, "nemo_evaluator_config", "config", "params")


def server_load(doc: Doc, role: str, facts: dict) -> tuple[int, str]:
    """The concurrent requests the server sees, and where that figure comes from."""
    if role == "mrcr":
        value = doc.value(PARAMS + ("parallelism",))
        return int(value), f"parallelism {value} from the template (golden)"
    if role == "gdpval":
        gym = doc.value(_task_params(0) + ("extra", "nemo_gym", "common_params"), "")
        found = re.search(r"stirrup_agent\.concurrency=(\d+)", str(gym))
        if not found:
            raise EditError("the GDPVal template no longer sets stirrup_agent.concurrency")
        return int(found.group(1)), f"agent concurrency {found.group(1)} (the template's)"
    if role == "tau2":
        return int(facts["tau2_parallelism"]), "fact tau2_parallelism"
    return int(facts["parallelism"]), "fact parallelism (the top-level per-task concurrency)"


def command_gpu_util(doc: Doc) -> float | None:
    flags = ServeFlags.parse(doc.value(CMD))
    if flags.has("gpu_memory_utilization"):
        value = doc.value(("deployment", "gpu_memory_utilization"))
        return float(value) if isinstance(value, (int, float)) else None
    return None


def _template_len(doc: Doc) -> int | None:
    return ServeFlags.parse(doc.value(CMD)).integer("max_model_len")


def _what(task: Task, role: str, der: Derivation) -> str:
    if role == "mrcr":
        return f"MRCR {der.variant.config} (NeMo Gym)"
    return {
        "gdpval": "GDPVal rubric mode (NeMo Gym)",
        "aa": "AA suite, seven tasks in one invocation",
        "tau2": "Tau2-Bench Telecom (superseded by Tau3-Banking, not comparable with it)",
        "tau3": "Tau3-Banking (NeMo Gym, the AA suite's agentic tool-use task)",
    }.get(role, f"{task.name} on the AA template")


def _header(doc: Doc, task: Task, output: Output, der: Derivation) -> None:
    lines = comments.header(
        task.name, output.template, output.role, task.recipe, _what(task, output.role, der)
    )
    comments.replace_header(doc, lines)


def _set_if(doc: Doc, path: tuple, value: Any, comment: str | None = None) -> None:
    if doc.has(path):
        doc.set(path, value, comment)


def _cluster(doc: Doc, facts: dict, defaulted: list[str]) -> None:
    for name in ("hostname", "account", "partition", "output_dir"):
        doc.set(("execution", name), facts[name])
    _set_if(
        doc,
        ("execution", "walltime"),
        facts["walltime"],
        f"{NOTE}default 04:00:00, not your cluster's limit: set fact walltime"
        if "walltime" in defaulted
        else f"{NOTE}fact walltime (quoted: YAML 1.1 reads H:M:S unquoted as an integer)",
    )
    if doc.has(("execution", "cpu_partition")):
        doc.set(("execution", "cpu_partition"), facts["cpu_partition"])
    doc.set(("deployment", "checkpoint_path"), facts["checkpoint_path"])
    doc.set(("deployment", "served_model_name"), facts["served_model_name"])
    if facts.get("vllm_image"):
        doc.set(("deployment", "image"), facts["vllm_image"], f"{NOTE}fact vllm_image")


def write_topology(doc: Doc, der: Derivation, role: str) -> None:
    p = der.plan
    ex = ("execution",)
    gres = f"gpu:{der.request.gpus_per_node}"
    if doc.has(ex + ("gres",)):
        doc.set(
            ex + ("gres",),
            gres,
            f"{NOTE}fact gpus_per_node; TP x DP = {p.tensor_parallel_size * p.data_parallel_size}",
        )
    else:
        doc.add(ex, "gres", gres, f"{NOTE}fact gpus_per_node")
    if role == "mrcr" and doc.has(ex + ("num_nodes",)):
        doc.comment_above(
            ex + ("num_nodes",),
            f"{NOTE}{der.num_nodes} node(s) x (TP {p.tensor_parallel_size} x DP "
            f"{p.data_parallel_size}) on {der.request.gpus_per_node}-GPU nodes = {p.replicas} "
            "vLLM replica(s); gres = TP x DP per node",
        )
    for key, value in (("num_nodes", der.num_nodes), ("num_instances", der.num_instances)):
        if doc.has(ex + (key,)):
            doc.set(ex + (key,), value, f"{NOTE}fact max_nodes, one vLLM instance per node")
        elif value > 1:
            doc.add(ex, key, value, f"{NOTE}fact max_nodes")

    doc.set_flag(CMD, "--tensor-parallel-size", p.tensor_parallel_size)
    doc.set_flag(CMD, "--data-parallel-size", p.data_parallel_size, after="--tensor-parallel-size")
    doc.set_flag(CMD, "--max-model-len", der.request.max_model_len)
    doc.set_flag(CMD, "--max-num-seqs", p.max_num_seqs, after="--max-model-len")
    notes = [der.topology_note(), der.seqs_note(), der.max_model_len.source]
    if doc.has(("deployment", "kv_cache_dtype")):
        doc.set(
            ("deployment", "kv_cache_dtype"),
            der.kv_cache_dtype.value,
            NOTE + der.kv_cache_dtype.source,
        )
    elif der.kv_cache_dtype.value == "fp8":
        doc.set_flag(CMD, "--kv-cache-dtype", "fp8", after="--max-num-seqs")
        notes.append("--kv-cache-dtype " + der.kv_cache_dtype.source)
    else:
        doc.drop_flag(CMD, "--kv-cache-dtype")
    for extra, flag in (
        (der.expert_parallel, "--enable-expert-parallel"),
        (der.trust_remote_code, "--trust-remote-code"),
    ):
        if extra is not None:
            doc.set_flag(CMD, flag, None, after="--max-num-seqs")
            notes.append(extra.source)
        else:
            doc.drop_flag(CMD, flag)
    notes.append("no comment inside this folded block: bash drops everything after `#`")
    for note in notes:
        doc.comment_above(CMD, NOTE + note)

    env = ("deployment", "env_vars")
    long_key = env + ("VLLM_ALLOW_LONG_MAX_MODEL_LEN",)
    if der.long_override is not None:
        if doc.has(long_key):
            doc.note(long_key, NOTE + der.long_override.source)
        else:
            add_env(
                doc, env, "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "lit:1", NOTE + der.long_override.source
            )
    elif doc.has(long_key):
        doc.delete(long_key)


def add_env(doc: Doc, section: tuple, name: str, value: str, note: str) -> None:
    """One env var, creating the section when the template has none (Tau3's deployment)."""
    if doc.has(section):
        doc.add(section, name, value, note)
    else:
        doc.add(section[:-1], section[-1], {name: value}, note)


def _thinking(doc: Doc, facts: dict, role: str, problems: list[str]) -> None:
    kwargs = ADAPTER + ("params_to_add", "chat_template_kwargs")
    if facts["thinking"]:
        _set_if(
            doc,
            ("deployment", "reasoning_parser"),
            facts.get("reasoning_parser"),
            f"{NOTE}fact reasoning_parser (a name the image's vLLM registers: NEL313)",
        )
        key = facts["thinking_key"]
        if doc.has(kwargs) and role == "mrcr":
            doc.comment_above(kwargs, f"{NOTE}fact thinking: true, key from fact thinking_key")
        if key != "enable_thinking" and doc.has(kwargs + ("enable_thinking",)):
            doc.rename_key(kwargs + ("enable_thinking",), key)
            doc.note(kwargs + (key,), f"{NOTE}fact thinking_key")
        return
    if role == "gdpval":
        problems.append("GDPVal needs a reasoning model with thinking on (fact thinking: false)")
        return
    if doc.has(("deployment", "reasoning_parser")):
        doc.delete(("deployment", "reasoning_parser"))
        doc.drop_flag(CMD, "--reasoning-parser")
    if doc.has(kwargs):
        doc.delete(kwargs)
        if not doc.value(kwargs[:-1]):  # nothing else to add: drop the empty mapping too
            doc.delete(kwargs[:-1])
    if role in ("aa", "single", "tau2"):
        _set_if(doc, ADAPTER + ("process_reasoning_traces",), False, f"{NOTE}fact thinking: false")
        if doc.has(PARAMS + ("max_new_tokens",)):
            doc.set(
                PARAMS + ("max_new_tokens",),
                INSTRUCT_MAX_NEW_TOKENS,
                f"{NOTE}instruct fallback (fact thinking: false)",
            )
            _set_if(
                doc, ("export", "mlflow", "tags", "max_new_tokens"), str(INSTRUCT_MAX_NEW_TOKENS)
            )


def _caches(doc: Doc, facts: dict, extra_eval_mounts: dict) -> None:
    mounts = ("execution", "mounts")
    eval_mounts = dict(extra_eval_mounts)
    if facts.get("hf_cache"):
        doc.add(mounts, "deployment", {facts["hf_cache"]: HF_CACHE_MOUNT}, f"{NOTE}fact hf_cache")
        eval_mounts[facts["hf_cache"]] = HF_CACHE_MOUNT
        for section in (("deployment", "env_vars"), ("evaluation", "env_vars")):
            add_env(doc, section, "HF_HOME", f"lit:{HF_CACHE_MOUNT}", f"{NOTE}fact hf_cache")
    if facts.get("uv_cache"):
        eval_mounts[facts["uv_cache"]] = UV_CACHE_MOUNT
        doc.add(
            ("evaluation", "env_vars"),
            "UV_CACHE_DIR",
            f"lit:{UV_CACHE_MOUNT}",
            f"{NOTE}fact uv_cache",
        )
    if not eval_mounts:
        return
    if doc.has(mounts + ("evaluation",)):
        doc.delete(mounts + ("evaluation",), with_comments=False)
    doc.add(mounts, "evaluation", eval_mounts, f"{NOTE}facts (host path: container path)")


def _judges(doc: Doc, facts: dict, field_name: str, fact: str) -> None:
    for i in range(len(doc.value(("evaluation", "tasks"), []) or [])):
        extra = _task_params(i) + ("extra",)
        for block in ("judge", "user"):
            path = extra + (block, field_name)
            if doc.value(path) == "???":
                doc.set(path, facts[fact])


def _export(doc: Doc, facts: dict, benchmark: str | None = None) -> None:
    mlflow = ("export", "mlflow")
    if not doc.has(mlflow):
        return
    name = facts.get("mlflow_experiment") or facts["served_model_name"]
    note = None if facts.get("mlflow_experiment") else f"{NOTE}default: the served model name"
    doc.set(mlflow + ("experiment_name",), name, note)
    doc.set(mlflow + ("tags", "model"), facts["served_model_name"])
    if benchmark:
        doc.set(mlflow + ("tags", "benchmark"), benchmark, f"{NOTE}the task's name")


def _single_tasks(doc: Doc, task: Task, root) -> None:
    """Replace the AA task list with the recipe's one task entry."""
    fragment = recipe_fragment(root, task.recipe).rstrip("\n").split("\n")
    key_index, end = doc.extent(("evaluation", "tasks"))
    lines = doc.lines
    indent = len(lines[key_index]) - len(lines[key_index].lstrip()) + 2
    lines[key_index + 1 : end + 1] = [
        f"{' ' * indent}# {NOTE}the entry from {task.recipe} (Config fragment)"
    ] + [(" " * indent + x) if x.strip() else x for x in fragment]
    doc.replace_text("\n".join(lines))


def render_output(
    task: Task, output: Output, facts: dict, defaulted: list[str], ckpt: Checkpoint, root
) -> Rendered:
    from evalkit.inputs import read_text

    doc = Doc(read_text(root / output.template), output.file_name)
    role = output.role
    problems: list[str] = []
    comments.clear_template_prose(doc, role)
    if role == "single":
        _single_tasks(doc, task, root)
    load, load_source = server_load(doc, role, facts)
    der = derive(
        "mrcr" if role == "mrcr" else role,
        ckpt,
        facts,
        template_len=_template_len(doc),
        load=load,
        load_source=load_source,
        gpu_memory_utilization=command_gpu_util(doc),
        mrcr_variant=task.mrcr_variant if role == "mrcr" else None,
        resolve_preemption=role == "mrcr",
    )
    problems += der.problems
    _cluster(doc, facts, defaulted)
    write_topology(doc, der, role)
    if der.resolved is not None:
        if der.resolved.value != load:
            doc.set(PARAMS + ("parallelism",), der.resolved.value)
        doc.note(PARAMS + ("parallelism",), NOTE + der.resolved.source)
    elif role == "mrcr":
        doc.note(PARAMS + ("parallelism",), f"{NOTE}{load_source}, total across instances")
    _thinking(doc, facts, role, problems)

    extra_mounts: dict = {}
    if role == "mrcr":
        new = der.variant.config_path
        for key in ("data_prep_params", "collect_rollout_params"):
            path = PARAMS + ("extra", "nemo_gym", key)
            if not doc.replace_in(path, "benchmarks/mrcr/config_n3_1m.yaml", new):
                raise EditError(f"the MRCR template's {key} no longer names config_n3_1m.yaml")
        doc.comment_above(
            PARAMS + ("extra", "nemo_gym", "data_prep_params"),
            f"{NOTE}variant {der.variant.config}: {der.variant_source}",
        )
    if role in ("mrcr", "gdpval", "tau3"):
        doc.set(("evaluation", "tasks", 0, "container"), facts["gym_image"])
    if role == "tau3":
        _tau3(doc, facts)
    if role == "gdpval":
        doc.set(("gdpval_judge", "base_url"), facts["judge_url"])
        extra_mounts = {
            facts["gdpval_sif_dir"]: GDPVAL_SIF_MOUNT,
            facts["gdpval_ref_dir"]: GDPVAL_REF_MOUNT,
        }
    if (
        role in ("aa", "single", "tau2")
        and facts["thinking"]
        and doc.has(PARAMS + ("max_new_tokens",))
    ):
        doc.comment_above(
            PARAMS + ("max_new_tokens",),
            f"{NOTE}sampling: the template's reasoning-mode fallback; the model card's "
            "values replace it (export.mlflow.tags must stay equal)",
        )
    if role in ("aa", "single"):
        _set_if(doc, PARAMS + ("parallelism",), facts["parallelism"])
        if facts.get("judge_url"):
            _judges(doc, facts, "url", "judge_url")
    if role == "tau2":
        doc.set(("deployment", "tool_call_parser"), facts["tool_call_parser"])
        doc.set(PARAMS + ("parallelism",), facts["tau2_parallelism"])
        doc.set(_task_params(0) + ("parallelism",), facts["tau2_parallelism"])
        _judges(doc, facts, "url", "tau2_url")
    _caches(doc, facts, extra_mounts)
    _export(doc, facts, task.name if role == "single" else None)

    _header(doc, task, output, der)
    text = doc.text if doc.text.endswith("\n") else doc.text + "\n"
    return Rendered(output, text, der, warnings=list(der.warnings), problems=problems)


def _tau3(doc: Doc, facts: dict) -> None:
    """The template reads two deployment keys into its command: write_topology has put the
    length in the command itself, so its key goes; the parser key gets the fact."""
    if doc.has(("deployment", "max_model_len")):
        doc.delete(("deployment", "max_model_len"))
    doc.set(
        ("deployment", "tool_call_parser"),
        facts["tool_call_parser"],
        f"{NOTE}fact tool_call_parser; without tool calling every episode scores 0 (NEL412)",
    )
    doc.set(PARAMS + ("parallelism",), facts["parallelism"])
    doc.note(
        PARAMS + ("parallelism",),
        f"{NOTE}fact parallelism; lower it while the user simulator answers HTTP 429",
    )
    if not facts["thinking"]:
        _set_if(doc, ADAPTER + ("process_reasoning_traces",), False, f"{NOTE}fact thinking: false")


def judged(task: Task, root) -> bool:
    if task.kind in ("aa", "gdpval"):
        return True
    if task.recipe:
        return "judge:" in recipe_fragment(root, task.recipe)
    return False
