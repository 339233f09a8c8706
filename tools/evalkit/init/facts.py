"""The facts `evalkit init` asks for: names, meaning, examples, types, and which task needs which.

The names are the interface an agent asks the user about, so they never change meaning.
Facts come from `--facts FILE.yaml` and `--set NAME=VALUE` (`--set` wins).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from evalkit.errors import InputError, UsageError

# Task kinds (see catalog.py): which templates a task renders, so which facts it needs.
MRCR, GDPVAL, AA, SINGLE = "mrcr", "gdpval", "aa", "single"
ALL = frozenset({MRCR, GDPVAL, AA, SINGLE})
EXPORTS = frozenset({GDPVAL, AA, SINGLE})  # templates with an MLflow auto-export job
GYM = frozenset({MRCR, GDPVAL})

DEFAULT_WALLTIME = "04:00:00"


@dataclass(frozen=True)
class Fact:
    name: str
    kind: type  # str, int, float or bool
    description: str
    example: Any
    required_for: frozenset = frozenset()
    default: Any = None

    def as_json(self) -> dict:
        return {"name": self.name, "description": self.description, "example": self.example}


FACTS: dict[str, Fact] = {
    f.name: f
    for f in (
        Fact(
            "hostname",
            str,
            "SLURM login node that nel submits through",
            "login.cluster.example",
            ALL,
        ),
        Fact("account", str, "SLURM account to charge", "my-team", ALL),
        Fact("partition", str, "SLURM partition of the GPU nodes", "batch", ALL),
        Fact(
            "cpu_partition",
            str,
            "SLURM partition for the CPU-only MLflow export job",
            "cpu",
            EXPORTS,
        ),
        Fact(
            "output_dir",
            str,
            "absolute path on the cluster's shared file system for results (and resume cache)",
            "/lustre/my-team/evals",
            ALL,
        ),
        Fact(
            "walltime",
            str,
            "per-job time limit of the partition, HH:MM:SS (default 04:00:00, a common cap)",
            "04:00:00",
            default=DEFAULT_WALLTIME,
        ),
        Fact("gpus_per_node", int, "GPUs in one node of the partition", 8, ALL),
        Fact("gpu_mem_gib", float, "memory of one GPU in GiB", 80, ALL),
        Fact(
            "max_nodes",
            int,
            "most nodes one MRCR job may use (one vLLM instance per node)",
            4,
            frozenset({MRCR}),
            default=1,
        ),
        Fact(
            "checkpoint_path",
            str,
            "checkpoint directory on the cluster (mounted at /checkpoint)",
            "/lustre/my-team/models/Model-FP8",
            ALL,
        ),
        Fact(
            "served_model_name", str, "model name vLLM serves and results carry", "model-fp8", ALL
        ),
        Fact(
            "vllm_image",
            str,
            "vLLM container image with a pinned tag (default: the template's)",
            "vllm/vllm-openai:v0.26.0",
        ),
        Fact(
            "hf_cache",
            str,
            "optional shared Hugging Face cache directory on the cluster (mounted at /hf-cache)",
            "/lustre/my-team/hf-cache",
        ),
        Fact(
            "uv_cache",
            str,
            "optional shared uv cache directory on the cluster (mounted at /uv-cache)",
            "/lustre/my-team/uv-cache",
        ),
        Fact(
            "gym_image",
            str,
            "NeMo Gym task image whose /opt/Gym is a git checkout (references/gym.md)",
            "registry.example/my-team/nemo-gym-git:26.05",
            GYM,
        ),
        Fact(
            "thinking",
            bool,
            "true for a reasoning model run with thinking on, false for an instruct model",
            True,
            ALL,
        ),
        Fact(
            "reasoning_parser",
            str,
            "the model's vLLM --reasoning-parser (model card); needed when thinking is true",
            "nemotron_v3",
        ),
        Fact(
            "thinking_key",
            str,
            "chat_template_kwargs key that switches thinking: enable_thinking or thinking",
            "enable_thinking",
            default="enable_thinking",
        ),
        Fact(
            "tool_call_parser",
            str,
            "the model's vLLM --tool-call-parser (Tau2 in the AA suite)",
            "qwen3_coder",
            frozenset({AA}),
        ),
        Fact(
            "context",
            int,
            "documented context length in tokens from the model card (default: config.json "
            "max_position_embeddings); decides the MRCR variant",
            1048576,
        ),
        Fact(
            "parallelism",
            int,
            "total concurrent requests per task (AA and single tasks; default 256)",
            256,
            default=256,
        ),
        Fact(
            "judge_url",
            str,
            "the INFERENCE_JUDGE_URL value (an OpenAI-compatible /v1 base) for judged tasks",
            "https://inference.example/v1",
        ),
        Fact(
            "tau2_url",
            str,
            "the TAU2_ENDPOINT_URL value (full /v1/chat/completions) for Tau2's user and judge",
            "https://inference.example/v1/chat/completions",
            frozenset({AA}),
        ),
        Fact(
            "tau2_parallelism",
            int,
            "Tau2 concurrency, bounded by the endpoints' rate limits (default 64; at most 512)",
            64,
            default=64,
        ),
        Fact(
            "gdpval_sif_dir",
            str,
            "cluster directory holding python-3.13.gdpval.sif (mounted at /gdpval/sif)",
            "/lustre/my-team/gdpval/sif",
            frozenset({GDPVAL, AA}),
        ),
        Fact(
            "gdpval_ref_dir",
            str,
            "writable cluster directory for GDPVal reference-file staging",
            "/lustre/my-team/gdpval/ref",
            frozenset({GDPVAL, AA}),
        ),
        Fact(
            "mlflow_experiment",
            str,
            "MLflow experiment name (default: the served model name)",
            "model-fp8-evals",
        ),
    )
}


def _coerce(fact: Fact, value: Any, origin: str) -> Any:
    kind = fact.kind
    ok = (
        (kind is bool and isinstance(value, bool))
        or (kind is int and isinstance(value, int) and not isinstance(value, bool) and value > 0)
        or (
            kind is float
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
            and value > 0
        )
        or (kind is str and isinstance(value, (str, int, float)) and not isinstance(value, bool))
    )
    if not ok:
        want = {bool: "true or false", int: "a positive integer", float: "a positive number"}
        raise InputError(
            f"fact {fact.name} must be {want.get(kind, 'a string')}, found {value!r}", origin
        )
    if kind is str:
        value = str(value)
        if not value.strip() or value.strip() == "???":
            raise InputError(f"fact {fact.name} is empty", origin)
        if "${" in value:
            raise InputError(f"fact {fact.name} must not contain an interpolation: {value}", origin)
    return float(value) if kind is float else value


def _check_name(name: str, origin: str) -> Fact:
    fact = FACTS.get(name)
    if fact is None:
        import difflib

        near = difflib.get_close_matches(name, FACTS, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise InputError(f"unknown fact {name!r}{hint}; `evalkit init --help` lists them", origin)
    return fact


def read_facts(facts_file: str | None, sets: Iterable[str]) -> dict[str, Any]:
    """Facts from the YAML file, then each `--set NAME=VALUE` (parsed as a YAML scalar)."""
    from evalkit.inputs import parse_yaml, read_text

    out: dict[str, Any] = {}
    if facts_file:
        data = parse_yaml(read_text(facts_file), facts_file)  # bounded, like every reader
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise InputError("facts file must be a mapping of fact names to values", facts_file)
        for name, value in data.items():
            fact = _check_name(str(name), facts_file)
            if value is not None:
                out[fact.name] = _coerce(fact, value, facts_file)
    for item in sets:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set wants NAME=VALUE, got {item!r}")
        fact = _check_name(name.strip(), "--set")
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            value = text
        if fact.kind is str and value is not None and not isinstance(value, str):
            value = text  # e.g. an account named 1234 or a tag like 26.05
        if value is None:
            out.pop(fact.name, None)
        else:
            out[fact.name] = _coerce(fact, value, f"--set {name.strip()}")
    return out


def required(kind: str, facts: Mapping[str, Any], judged: bool) -> list[Fact]:
    """The required facts for a task kind, in catalog order (whether given or not)."""
    need = [f for f in FACTS.values() if kind in f.required_for]
    thinking = facts.get("thinking", True)
    if kind == AA and not thinking:  # GDPVal needs thinking: the AA set goes without it
        need = [f for f in need if not f.name.startswith("gdpval_")]
    if thinking and kind in (MRCR, GDPVAL, AA):
        need.append(FACTS["reasoning_parser"])
    if judged:
        need.append(FACTS["judge_url"])
    return need


def missing(kind: str, facts: Mapping[str, Any], judged: bool) -> list[Fact]:
    return [f for f in required(kind, facts, judged) if f.name not in facts]


def with_defaults(facts: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Facts plus defaults; the names that took a default (said in a warning)."""
    out = dict(facts)
    defaulted = []
    for fact in FACTS.values():
        if fact.name not in out and fact.default is not None:
            out[fact.name] = fact.default
            defaulted.append(fact.name)
    return out, defaulted


def help_text() -> str:
    rows = []
    for fact in FACTS.values():
        need = ", ".join(sorted(fact.required_for)) if fact.required_for else "optional"
        rows.append(f"  {fact.name:<18} {fact.description} [{need}; e.g. {fact.example}]")
    return "\n".join(rows)
