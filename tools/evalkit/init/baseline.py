"""`--baseline-of`: the baseline config for a candidate, changing only checkpoint values.

Only what follows the checkpoint changes: checkpoint_path, served_model_name, the KV-cache
dtype, the sizing (TP/DP, --max-num-seqs, expert parallel, trust-remote-code) and the
MLflow model tag. Everything that decides the score (tasks, sampling, variant,
--max-model-len, parsers, image) stays byte for byte, so `preflight --pair` finds no
other difference.
"""

from __future__ import annotations

from evalkit.benchmarks.tau3.facts import CONFIG_PATH_MARK as TAU3_CONFIG_MARK
from evalkit.checkpoint import load_checkpoint
from evalkit.config.command import ServeFlags
from evalkit.config.textedit import Doc
from evalkit.errors import InputError
from evalkit.init import CHECKPOINT_FACT, Result, require_checkpoint_dir
from evalkit.init.catalog import Output
from evalkit.init.derive import derive
from evalkit.init.facts import FACTS
from evalkit.init.render import (
    CMD,
    NOTE,
    PARAMS,
    Rendered,
    command_gpu_util,
    server_load,
    write_topology,
)

NEEDED = ("checkpoint_path", "served_model_name", "gpu_mem_gib")


def _role(doc: Doc) -> str:
    if doc.has(("gdpval_judge",)):
        return "gdpval"
    gym = doc.value(PARAMS + ("extra", "nemo_gym"))
    if isinstance(gym, dict) and "mrcr" in str(gym.get("collect_rollout_params", "")):
        return "mrcr"
    if isinstance(gym, dict) and TAU3_CONFIG_MARK in str(gym.get("collect_rollout_params", "")):
        return "tau3"
    names = [t.get("name") for t in doc.value(("evaluation", "tasks"), []) or []]
    return "tau2" if "tau2_bench_telecom" in names else "aa"


def _drop_init_comments_above(doc: Doc, path: tuple) -> None:
    span = doc.doc.spans[path]
    lines = doc.lines
    index = (span.key_line or span.line) - 1
    while index > 0 and lines[index - 1].lstrip().startswith("# " + NOTE):
        del lines[index - 1]
        index -= 1
    doc.replace_text("\n".join(lines))


def build_baseline(candidate: str, given: dict, checkpoint_dir: str | None) -> Result:
    from pathlib import Path

    from evalkit.inputs import read_text

    require_checkpoint_dir(checkpoint_dir)
    result = Result(task=f"baseline-of {candidate}")
    result.missing = [FACTS[n] for n in NEEDED if n not in given]
    if checkpoint_dir is None:
        result.missing.insert(0, CHECKPOINT_FACT)
    if result.missing:
        return result
    doc = Doc(read_text(candidate), candidate)
    doc.exact()  # the user's file: refused where the launcher refuses it
    role = _role(doc)
    flags = ServeFlags.parse(doc.value(CMD))
    gres = str(doc.value(("execution", "gres"), ""))
    if not gres.startswith("gpu:") or not gres[4:].isdigit():
        raise InputError("execution.gres must read gpu:N in the candidate", candidate)
    nodes = int(doc.value(("execution", "num_nodes"), 1) or 1)
    load, load_source = server_load(
        doc, role, {"tau2_parallelism": _top_parallelism(doc), "parallelism": _top_parallelism(doc)}
    )
    context = given.get("context")
    ckpt = load_checkpoint(checkpoint_dir, documented_context=int(context) if context else None)
    length = flags.integer("max_model_len")
    facts = {
        "gpu_mem_gib": given["gpu_mem_gib"],
        "gpus_per_node": int(gres[4:]),
        "max_nodes": nodes,
    }
    der = derive(
        # Tau3's length is the candidate's, kept as written: size it like any fixed length.
        "mrcr" if role == "mrcr" else ("aa" if role == "tau3" else role),
        ckpt,
        facts,
        template_len=length,
        load=load,
        load_source=load_source.replace("fact ", "the candidate's "),
        gpu_memory_utilization=command_gpu_util(doc),
    )
    der.max_model_len.source = f"--max-model-len {length}: identical to the candidate"
    doc.set(("deployment", "checkpoint_path"), given["checkpoint_path"])
    old_name = doc.value(("deployment", "served_model_name"))
    doc.set(("deployment", "served_model_name"), given["served_model_name"])
    if doc.value(("export", "mlflow", "tags", "model")) == old_name:
        doc.set(("export", "mlflow", "tags", "model"), given["served_model_name"])
    _drop_init_comments_above(doc, CMD)
    write_topology(doc, der, role)
    doc.comment_above(
        CMD, f"{NOTE}baseline of {Path(candidate).name}: only checkpoint values differ"
    )
    text = doc.text if doc.text.endswith("\n") else doc.text + "\n"
    name = Path(candidate).stem + "_baseline.yaml"
    result.configs.append(
        Rendered(Output(candidate, name, role), text, der, list(der.warnings), list(der.problems))
    )
    result.warnings += der.warnings
    result.problems += der.problems
    return result


def _top_parallelism(doc: Doc) -> int:
    values = [doc.value(PARAMS + ("parallelism",))]
    for i, _ in enumerate(doc.value(("evaluation", "tasks"), []) or []):
        values.append(
            doc.value(
                (
                    "evaluation",
                    "tasks",
                    i,
                    "nemo_evaluator_config",
                    "config",
                    "params",
                    "parallelism",
                )
            )
        )
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return max(ints) if ints else 1
