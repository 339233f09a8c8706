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
from evalkit.init.factkinds import KINDS, FactError, check_bool, check_int, check_number

# Task kinds (see catalog.py): which templates a task renders, so which facts it needs.
MRCR, GDPVAL, AA, SINGLE = "mrcr", "gdpval", "aa", "single"
TAU3, TAU2 = "tau3", "tau2"  # Tau3-Banking (NeMo Gym); Tau2-Bench Telecom (superseded)
ALL = frozenset({MRCR, GDPVAL, AA, SINGLE, TAU3, TAU2})
EXPORTS = frozenset({GDPVAL, AA, SINGLE, TAU2})  # templates with an MLflow auto-export job
GYM = frozenset({MRCR, GDPVAL, TAU3, AA})  # AA writes the Tau3 and GDPVal gym configs

DEFAULT_WALLTIME = "04:00:00"


@dataclass(frozen=True)
class Fact:
    name: str
    form: str  # a kind from factkinds.KINDS: what the value may hold
    description: str
    example: Any
    required_for: frozenset = frozenset()
    default: Any = None
    low: float = 1  # bounds of an int or number fact
    high: float = 1 << 31

    @property
    def kind(self) -> type:
        return KINDS[self.form].type if self.form in KINDS else str

    def as_json(self) -> dict:
        out = {"name": self.name, "description": self.description, "example": self.example}
        if self.form in KINDS:
            out["kind"] = self.form
        return out


FACTS: dict[str, Fact] = {
    f.name: f
    for f in (
        Fact(
            "hostname",
            "hostname",
            "SLURM login node that nel submits through",
            "login.cluster.example",
            ALL,
        ),
        Fact("account", "name", "SLURM account to charge", "my-team", ALL),
        Fact("partition", "name", "SLURM partition of the GPU nodes", "batch", ALL),
        Fact(
            "cpu_partition",
            "name",
            "SLURM partition for the CPU-only MLflow export job",
            "cpu",
            EXPORTS,
        ),
        Fact(
            "output_dir",
            "path",
            "absolute path on the cluster's shared file system for results (and resume cache)",
            "/lustre/my-team/evals",
            ALL,
        ),
        Fact(
            "walltime",
            "walltime",
            "per-job time limit of the partition, HH:MM:SS (default 04:00:00, a common cap)",
            "04:00:00",
            default=DEFAULT_WALLTIME,
        ),
        Fact("gpus_per_node", "int", "GPUs in one node of the partition", 8, ALL, high=64),
        Fact("gpu_mem_gib", "number", "memory of one GPU in GiB", 80, ALL, high=4096),
        Fact(
            "max_nodes",
            "int",
            "most nodes one MRCR job may use (one vLLM instance per node)",
            4,
            frozenset({MRCR}),
            default=1,
            high=4096,
        ),
        Fact(
            "checkpoint_path",
            "path",
            "checkpoint directory on the cluster (mounted at /checkpoint)",
            "/lustre/my-team/models/Model-FP8",
            ALL,
        ),
        Fact(
            "served_model_name",
            "name",
            "model name vLLM serves and results carry",
            "model-fp8",
            ALL,
        ),
        Fact(
            "vllm_image",
            "image",
            "vLLM container image with a pinned tag (default: the template's)",
            "vllm/vllm-openai:v0.26.0",
        ),
        Fact(
            "hf_cache",
            "path",
            "optional shared Hugging Face cache directory on the cluster (mounted at /hf-cache)",
            "/lustre/my-team/hf-cache",
        ),
        Fact(
            "uv_cache",
            "path",
            "optional shared uv cache directory on the cluster (mounted at /uv-cache)",
            "/lustre/my-team/uv-cache",
        ),
        Fact(
            "gym_image",
            "image",
            "NeMo Gym task image whose /opt/Gym is a git checkout (references/gym.md)",
            "registry.example/my-team/nemo-gym-git:26.05",
            GYM,
        ),
        Fact(
            "thinking",
            "bool",
            "true for a reasoning model run with thinking on, false for an instruct model",
            True,
            ALL,
        ),
        Fact(
            "reasoning_parser",
            "name",
            "the model's vLLM --reasoning-parser (model card); needed when thinking is true",
            "nemotron_v3",
        ),
        Fact(
            "thinking_key",
            "key",
            "chat_template_kwargs key that switches thinking: enable_thinking or thinking",
            "enable_thinking",
            default="enable_thinking",
        ),
        Fact(
            "tool_call_parser",
            "name",
            "the model's vLLM --tool-call-parser (Tau3-Banking, and Tau2 when asked)",
            "qwen3_coder",
            frozenset({AA, TAU3, TAU2}),
        ),
        Fact(
            "context",
            "int",
            "documented context length in tokens from the model card (default: config.json "
            "max_position_embeddings); decides the MRCR variant",
            1048576,
        ),
        Fact(
            "parallelism",
            "int",
            "total concurrent requests per task (AA and single tasks; default 256)",
            256,
            default=256,
        ),
        Fact(
            "judge_url",
            "url",
            "the INFERENCE_JUDGE_URL value (an OpenAI-compatible /v1 base) for judged tasks",
            "https://inference.example/v1",
        ),
        Fact(
            "tau2_url",
            "url",
            "the TAU2_ENDPOINT_URL value (full /v1/chat/completions) for Tau2's user and judge",
            "https://inference.example/v1/chat/completions",
            frozenset({TAU2}),
        ),
        Fact(
            "tau2_parallelism",
            "int",
            "Tau2 concurrency, bounded by the endpoints' rate limits (default 64; at most 512)",
            64,
            default=64,
            high=512,
        ),
        Fact(
            "gdpval_sif_dir",
            "path",
            "cluster directory holding python-3.13.gdpval.sif (mounted at /gdpval/sif)",
            "/lustre/my-team/gdpval/sif",
            frozenset({GDPVAL, AA}),
        ),
        Fact(
            "gdpval_ref_dir",
            "path",
            "writable cluster directory for GDPVal reference-file staging",
            "/lustre/my-team/gdpval/ref",
            frozenset({GDPVAL, AA}),
        ),
        Fact(
            "mlflow_experiment",
            "name",
            "MLflow experiment name (default: the served model name)",
            "model-fp8-evals",
        ),
    )
}


# Unit and what a wrong value costs, per fact: shown by `init --help` and `--format json`.
UNITS = {
    "walltime": "HH:MM:SS",
    "gpus_per_node": "GPUs",
    "gpu_mem_gib": "GiB",
    "max_nodes": "nodes",
    "context": "tokens",
    "parallelism": "concurrent requests",
    "tau2_parallelism": "concurrent requests",
}
COSTS = {
    "hostname": "the submit fails (ssh to the wrong host)",
    "account": "sbatch refuses the job",
    "partition": "sbatch refuses the job, or it lands on nodes without the GPUs sized for",
    "cpu_partition": "the export job is refused on a GPU-only partition",
    "output_dir": "results land outside the shared file system; resume cannot find its cache",
    "walltime": "too long: sbatch refuses it; too short: more resume jobs (each reloads vLLM)",
    "gpus_per_node": "gres asks for GPUs the nodes lack (the job never starts), or idles GPUs",
    "gpu_mem_gib": "too high: vLLM runs out of KV cache and preempts; too low: idle concurrency",
    "max_nodes": "more than the partition allows: the job waits forever; fewer: a slower run",
    "checkpoint_path": "vLLM fails to start: the mount is empty",
    "served_model_name": "only a label, but baseline and candidate must differ to compare",
    "vllm_image": "an image whose vLLM predates the model: the server fails to load it",
    "gym_image": "a non-git /opt/Gym: the Gym bootstrap stops the job at startup",
    "thinking": "wrong mode: the score is not comparable with the reference (a wrong score)",
    "reasoning_parser": "an unregistered name: vLLM fails to start; a wrong one: a wrong score",
    "thinking_key": "the wrong key is ignored: thinking stays at the template default",
    "tool_call_parser": "every Tau3-Banking (or Tau2) episode scores 0",
    "context": "decides the MRCR variant: too high serves past what the model was trained "
    "on (a wrong score); too low picks the 128k variant (not comparable with 1M runs)",
    "parallelism": "too high: preemption and a slow run; too low: idle GPUs",
    "judge_url": "judged tasks fail or score against the wrong judge",
    "tau2_url": "Tau2 fails at its first turn",
    "tau2_parallelism": "too high: HTTP 429 from the endpoints and failed trials",
    "gdpval_sif_dir": "the Stirrup sandbox cannot start: every GDPVal task fails",
    "gdpval_ref_dir": "reference files cannot be staged: GDPVal fails",
}


def documentation(fact: Fact) -> dict:
    """Everything an agent needs about one fact, without reading init's source."""
    out = {
        "name": fact.name,
        "meaning": fact.description,
        "kind": fact.form,
        "unit": UNITS.get(fact.name),
        "default": fact.default,
        "required_for": sorted(fact.required_for),
        "wrong_value_costs": COSTS.get(fact.name, "nothing beyond a label"),
        "example": fact.example,
    }
    return out


def check_value(fact: Fact, value: Any) -> Any:
    """The fact's value after its kind's check; FactError says what is wrong."""
    form = KINDS.get(fact.form)
    if form is None or form.type is str:
        if not isinstance(value, str):
            raise FactError(f"must be a string, found {value!r}")
        if not value.strip() or value.strip() == "???":
            raise FactError("is empty")
        if "${" in value:
            raise FactError("an interpolation (${...}) is not allowed")
        return form.check(value) if form else value
    if form.type is bool:
        return check_bool(value)
    if form.type is int:
        return check_int(value, fact.low, fact.high)
    return check_number(value, fact.low, fact.high)


def _checked(fact: Fact, value: Any, origin: str | None, line: int | None = None) -> Any:
    try:
        return check_value(fact, value)
    except FactError as err:
        raise InputError(f"fact {fact.name}: {err}", origin, line) from None


def _check_name(name: str, origin: str | None, line: int | None = None) -> Fact:
    fact = FACTS.get(name)
    if fact is None:
        import difflib

        near = difflib.get_close_matches(name, FACTS, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise InputError(
            f"unknown fact {name!r}{hint}; `evalkit init --help` lists them", origin, line
        )
    return fact


def _file_facts(facts_file: str) -> dict[str, Any]:
    """Each fact's text exactly as the file spells it (a plain `1.10` stays "1.10").

    The composed node keeps a scalar's own text, so a string fact never goes through
    YAML's int/float/sexagesimal guessing; typed facts are parsed from that text by their
    kind. Comments and quoting keep their YAML meaning.
    """
    from evalkit.inputs import compose_bounded, read_text

    root = compose_bounded(read_text(facts_file), facts_file)
    if root is None:
        return {}
    if not isinstance(root, yaml.MappingNode):
        raise InputError("facts file must be a mapping of fact names to values", facts_file)
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for key, node in root.value:
        line = key.start_mark.line + 1
        if not isinstance(key, yaml.ScalarNode):
            raise InputError("a fact name must be a plain word", facts_file, line)
        fact = _check_name(key.value, facts_file, line)
        if fact.name in seen:
            raise InputError(f"fact {fact.name} given twice", facts_file, line)
        seen.add(fact.name)
        if not isinstance(node, yaml.ScalarNode):
            raise InputError(f"fact {fact.name}: must be one value", facts_file, line)
        if node.tag == "tag:yaml.org,2002:null" and node.style is None:
            continue  # `name:` or `name: null` leaves the fact unset
        out[fact.name] = _checked(fact, node.value, facts_file, node.start_mark.line + 1)
    return out


def _set_text(text: str) -> str:
    """A --set value as given; one pair of YAML quotes around it is taken off."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        try:
            value = yaml.safe_load(stripped)
        except yaml.YAMLError:
            return text
        if isinstance(value, str):
            return value
    return text


def read_facts(facts_file: str | None, sets: Iterable[str]) -> dict[str, Any]:
    """Facts from the YAML file, then each `--set NAME=VALUE`, every one checked by kind.

    A --set value is taken verbatim (no YAML parsing: `a #b` keeps its `#b`, `1e3` stays
    text); an empty value unsets the fact.
    """
    out: dict[str, Any] = _file_facts(facts_file) if facts_file else {}
    for item in sets:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set wants NAME=VALUE, got {item!r}")
        fact = _check_name(name.strip(), None)
        if not text.strip():
            out.pop(fact.name, None)
            continue
        out[fact.name] = _checked(fact, _set_text(text), None)
    return out


def required(kind: str, facts: Mapping[str, Any], judged: bool) -> list[Fact]:
    """The required facts for a task kind, in catalog order (whether given or not)."""
    need = [f for f in FACTS.values() if kind in f.required_for]
    thinking = facts.get("thinking", True)
    if kind == AA and not thinking:  # GDPVal needs thinking: the AA set goes without it
        need = [f for f in need if not f.name.startswith("gdpval_")]
    if thinking and kind in (MRCR, GDPVAL, AA, TAU3, TAU2):
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
        unit = f" in {UNITS[fact.name]}" if fact.name in UNITS else ""
        default = f"; default {fact.default}" if fact.default is not None else ""
        rows.append(
            f"  {fact.name:<18} {fact.description} [{fact.form}{unit}; {need}{default}; "
            f"e.g. {fact.example}]\n  {'':<18} wrong: {COSTS.get(fact.name, 'a label only')}"
        )
    rows.append("\nfact kinds (a value outside its kind: exit 2, naming the fact and character):")
    rows += [f"  {k.name:<18} {k.rule}" for k in KINDS.values()]
    return "\n".join(rows)


def kinds_json() -> list[dict]:
    return [{"kind": k.name, "rule": k.rule} for k in KINDS.values()]
