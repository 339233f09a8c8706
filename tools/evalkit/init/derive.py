"""Checkpoint + facts -> the values init writes, each with the reason it has that value.

Every number comes from the code `evalkit size` and preflight use (evalkit.sizing.plan,
evalkit.checkpoint, evalkit.benchmarks.mrcr.variants); this module only chooses the inputs (nodes,
load, length) and records where each value came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from evalkit.benchmarks.mrcr.variants import (
    GOLDEN_MAX_MODEL_LEN_1M,
    VARIANTS,
    Variant,
    largest_fitting,
)
from evalkit.checkpoint import MOE_KEYS, Checkpoint, context_source
from evalkit.sizing import GIB, SizePlan, SizeRequest, plan

VLLM_DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's own default when the flag is absent


@dataclass
class Derived:
    value: Any
    source: str


@dataclass
class Derivation:
    kv_cache_dtype: Derived  # "fp8" or "auto" (the template's spelling)
    max_model_len: Derived
    plan: SizePlan
    request: SizeRequest
    load_source: str
    num_nodes: int
    num_instances: int
    expert_parallel: Derived | None
    trust_remote_code: Derived | None
    long_override: Derived | None
    variant: Variant | None = None
    variant_source: str = ""
    # Set when init changed the reference parallelism or TP so full-length prompts fit.
    resolved: Derived | None = None
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # init cannot write a valid config

    def topology_note(self) -> str:
        p, r = self.plan, self.request
        if r.tensor_parallel_size is not None and self.resolved is not None:
            return (
                f"TP {p.tensor_parallel_size} x DP {p.data_parallel_size}: the TP that holds the "
                f"most {r.max_model_len}-token sequences on {r.gpus_per_node} x "
                f"{r.gpu_mem_gib:g} GiB GPUs at {r.gpu_memory_utilization:g} (evalkit size)"
            )
        weights = f"{p.weights_bytes / GIB:.1f} GiB {'exact' if p.weights_exact else 'estimated'}"
        return (
            f"TP {p.tensor_parallel_size} x DP {p.data_parallel_size}: evalkit size, smallest "
            f"power-of-two TP holding weights ({weights}) / TP plus one "
            f"{r.max_model_len}-token sequence on {r.gpu_mem_gib:g} GiB GPUs at "
            f"{r.gpu_memory_utilization:g}; DP fills the {r.gpus_per_node}-GPU node"
        )

    def seqs_note(self) -> str:
        p, r = self.plan, self.request
        return (
            f"--max-num-seqs {p.max_num_seqs} = ceil({r.parallelism} / ({r.num_instances} x "
            f"{p.data_parallel_size})), {self.load_source}"
            + (
                f"; evalkit size predicts preemption ({p.seqs_per_replica_at_max_len} "
                "full-length sequences fit per replica)"
                if p.preempts_at_max_len
                else ""
            )
        )


def documented_context(ckpt: Checkpoint, facts: dict) -> tuple[int | None, str]:
    """The context the variant is chosen by, through the same rule as size and preflight."""
    given = int(facts["context"]) if facts.get("context") else None
    ctx = context_source(ckpt, given)
    if ctx.documented:
        return ctx.tokens, f"fact context={ctx.tokens} (model card)"
    if ctx.tokens is None:
        return None, "config.json has no max_position_embeddings"
    return ctx.tokens, f"config.json max_position_embeddings={ctx.tokens}"


def variant_for_context(context: int) -> Variant | None:
    """The largest MRCR variant whose prompt cap fits the documented context (the rule
    preflight's NEL603 and `evalkit size` apply: mrcr.variants.largest_fitting)."""
    return largest_fitting(context)


def _choose_variant(wanted: str, ckpt: Checkpoint, facts: dict, der_warnings, problems):
    context, source = documented_context(ckpt, facts)
    best = variant_for_context(context) if context else None
    if wanted == "auto":
        if best is None:
            problems.append(
                f"no MRCR variant fits the context ({source}); the smallest cap is 131072 tokens"
            )
            return VARIANTS["config_n3_128k.yaml"], source
        return best, f"largest variant whose cap fits the documented context: {source}"
    variant = VARIANTS[wanted]
    trained = ckpt.max_position_embeddings
    if context is not None and variant.cap_tokens > context:
        if facts.get("context"):
            problems.append(
                f"{variant.config} keeps prompts up to {variant.cap_tokens} tokens but the "
                f"documented context is {context} ({source}): use "
                + (f"mrcr-{'1m' if best.cap_tokens > 131072 else '128k'}" if best else "no MRCR")
            )
        else:
            der_warnings.append(
                f"{variant.config} keeps prompts up to {variant.cap_tokens} tokens but "
                f"{source}. Written as the golden run did (a hybrid checkpoint with the same "
                "262144 in config.json whose card documents 1M): --max-model-len "
                f"{GOLDEN_MAX_MODEL_LEN_1M} with VLLM_ALLOW_LONG_MAX_MODEL_LEN. Confirm the "
                "model card documents at least 1048576 tokens, then pass --set "
                "context=1048576; otherwise use mrcr-128k"
            )
        if facts.get("context"):
            return variant, f"task {wanted}, but {source} is below its cap"
        return variant, (
            f"task {wanted}; {source} is below the cap, served as the golden was: confirm "
            "the model card documents >= 1048576 tokens"
        )
    if best is not None and best.cap_tokens > variant.cap_tokens:
        der_warnings.append(
            f"{best.config} also fits the documented context ({source}); "
            f"{variant.config} was asked for. Baseline and candidate must use the same variant"
        )
    note = f"task {wanted}; fits {source}"
    if facts.get("context") and trained and trained < variant.cap_tokens:
        note += f" (config.json says {trained}: the long-length override is needed)"
    return variant, note


def _full_context(ckpt: Checkpoint, facts: dict, problems: list[str]) -> Derived:
    """Tau3-Banking serves the model's whole context: every turn resends the transcript."""
    context, source = documented_context(ckpt, facts)
    if context is None:
        problems.append(
            "Tau3-Banking needs --max-model-len = the model's context, and neither fact "
            "context nor config.json max_position_embeddings gives it: set fact context"
        )
        context = 0
    return Derived(
        context,
        f"--max-model-len {context}: the model's full context ({source}); Tau3 transcripts "
        "grow every turn (recipes/tasks/gym/tau3_banking.md)",
    )


def _kv(p: SizePlan, ckpt: Checkpoint) -> Derived:
    if p.kv_cache_dtype.startswith("fp8"):
        if ckpt.quant_config and (ckpt.quant_config.get("quantization") or {}).get(
            "kv_cache_quant_algo"
        ):
            algo = ckpt.quant_config["quantization"]["kv_cache_quant_algo"]
            return Derived("fp8", f"fp8: hf_quant_config.json kv_cache_quant_algo={algo}")
        return Derived("fp8", "fp8: config.json quantization_config.kv_cache_scheme")
    return Derived(
        "auto",
        "auto: no calibrated KV cache (hf_quant_config.json kv_cache_quant_algo and config.json "
        "kv_cache_scheme absent)",
    )


def derive(
    kind: str,
    ckpt: Checkpoint,
    facts: dict,
    *,
    template_len: int | None,
    load: int,
    load_source: str,
    gpu_memory_utilization: float | None,
    mrcr_variant: str | None = None,
    resolve_preemption: bool = False,
) -> Derivation:
    warnings: list[str] = []
    problems: list[str] = []
    variant, variant_source = None, ""
    trained = ckpt.max_position_embeddings
    if mrcr_variant:
        variant, variant_source = _choose_variant(mrcr_variant, ckpt, facts, warnings, problems)

    if variant is not None and variant.config == "config_n3_1m.yaml":
        length = Derived(
            GOLDEN_MAX_MODEL_LEN_1M,
            f"--max-model-len {GOLDEN_MAX_MODEL_LEN_1M}: the golden 1M envelope "
            f"(cap {variant.cap_tokens} + answer room)",
        )
    elif variant is not None:
        floor = variant.min_max_model_len()
        if trained is not None and trained >= floor:
            length = Derived(
                trained, f"--max-model-len {trained}: config.json max_position_embeddings"
            )
        else:
            length = Derived(
                floor,
                f"--max-model-len {floor}: cap {variant.cap_tokens} + answer room "
                f"(config.json max_position_embeddings={trained})",
            )
    elif kind == "tau3":
        length = _full_context(ckpt, facts, problems)
    else:
        length = Derived(template_len, f"--max-model-len {template_len}: the template's value")

    nodes = int(facts.get("max_nodes", 1)) if kind == "mrcr" else 1
    req = SizeRequest(
        gpu_mem_gib=float(facts["gpu_mem_gib"]),
        gpus_per_node=int(facts["gpus_per_node"]),
        max_model_len=int(length.value),
        parallelism=load,
        num_instances=nodes,
        num_nodes=nodes,
        kv_cache_dtype="auto",
        gpu_memory_utilization=gpu_memory_utilization or VLLM_DEFAULT_GPU_MEMORY_UTILIZATION,
    )
    p = plan(ckpt, req)
    resolved = None
    if resolve_preemption and p.fits and p.preempts_at_max_len:
        p, req, resolved = fit_load(ckpt, req, p, load_source)
        if resolved is not None and resolved.value != load:
            load_source = f"parallelism {resolved.value} chosen by init (full-length prompts fit)"
    if not p.fits:
        problems.append(
            f"one {req.max_model_len}-token sequence does not fit on {req.gpus_per_node} x "
            f"{req.gpu_mem_gib:g} GiB GPUs at any power-of-two TP (evalkit size)"
        )
    warnings += [f"evalkit size: {w}" for w in p.warnings if "exceeds max_position" not in w]

    moe = None
    if ckpt.is_moe:
        key = next(k for k in MOE_KEYS if isinstance(ckpt.text_config.get(k), int))
        moe = Derived(
            True, f"--enable-expert-parallel: MoE, config.json {key}={ckpt.text_config[key]}"
        )
    trust = None
    if ckpt.needs_trust_remote_code:
        trust = Derived(True, "--trust-remote-code: config.json has auto_map")
    override = None
    if p.deployment_env_vars.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN"):
        override = Derived(
            "lit:1",
            f"--max-model-len {req.max_model_len} > config.json max_position_embeddings {trained}",
        )
    return Derivation(
        kv_cache_dtype=_kv(p, ckpt),
        max_model_len=length,
        plan=p,
        request=req,
        load_source=load_source,
        num_nodes=nodes,
        num_instances=nodes,
        expert_parallel=moe,
        trust_remote_code=trust,
        long_override=override,
        variant=variant,
        variant_source=variant_source,
        resolved=resolved,
        warnings=warnings,
        problems=problems,
    )


def fit_load(ckpt: Checkpoint, req: SizeRequest, p: SizePlan, load_source: str):
    """The reference load preempts at full length: the TP and load that fit instead.

    Every power-of-two TP from the chosen one up to the node is sized at the same nodes;
    the one that holds the most full-length sequences across its replicas wins (the
    smaller TP on a tie: more replicas). When it holds the whole load only TP changes;
    otherwise the load drops to what fits and --max-num-seqs to one replica's share.
    The cost is stated as the load ratio: wall time grows about as concurrency falls.
    """
    best = None
    tp = p.tensor_parallel_size
    while tp <= req.gpus_per_node:
        q = plan(ckpt, replace(req, tensor_parallel_size=tp))
        held = q.seqs_per_replica_at_max_len * q.replicas
        if best is None or min(held, req.parallelism) > best[0]:
            best = (min(held, req.parallelism), tp, q)
        tp *= 2
    held, tp, q = best
    if held < 1:
        return p, req, None
    before = f"TP {p.tensor_parallel_size} x DP {p.data_parallel_size}"
    if held >= req.parallelism:
        note = (
            f"TP {tp} instead of {before}: {req.parallelism} full-length sequences fit "
            f"({q.seqs_per_replica_at_max_len} per replica x {q.replicas} replicas); "
            f"cost: {q.replicas} replicas instead of {p.replicas}, about "
            f"{p.replicas / q.replicas:.1f}x the reference's wall time"
        )
        return q, replace(req, tensor_parallel_size=tp), Derived(req.parallelism, note)
    new_req = replace(req, tensor_parallel_size=tp, parallelism=held)
    q = plan(ckpt, new_req)
    note = (
        f"parallelism {held} instead of the reference {req.parallelism}: "
        f"{q.seqs_per_replica_at_max_len} full-length sequences fit per replica at "
        f"TP {tp} x {q.replicas} replicas, so none is preempted; cost: about "
        f"{req.parallelism / held:.1f}x the reference's wall time (concurrency "
        f"{req.parallelism} -> {held})"
    )
    return q, new_req, Derived(held, note)
