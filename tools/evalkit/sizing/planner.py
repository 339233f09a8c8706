"""The serving plan: tensor and data parallelism, the KV pool per GPU, how many sequences
of the full length fit, and the launcher settings that follow (`evalkit size`, init)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evalkit.benchmarks.mrcr.variants import ANSWER_ROOM_TOKENS, choose_variant
from evalkit.checkpoint import Checkpoint, ContextSource
from evalkit.errors import InputError
from evalkit.sizing.layout import (
    GIB,
    dtype_bytes,
    fixed_bytes_per_sequence,
    kv_bytes_per_token,
    layout_of,
    max_num_seqs,
    resolve_kv_dtype,
)
from evalkit.sizing.weights import weights_bytes

DEFAULT_OVERHEAD_GIB = 4.0  # activations, CUDA graphs and allocator slack per GPU (assumed)


@dataclass
class SizeRequest:
    gpu_mem_gib: float
    gpus_per_node: int
    max_model_len: int
    parallelism: int
    num_instances: int = 1
    num_nodes: int | None = None
    kv_cache_dtype: str = "auto"
    gpu_memory_utilization: float = 0.9
    overhead_gib: float = DEFAULT_OVERHEAD_GIB
    tensor_parallel_size: int | None = None  # evaluate this TP instead of choosing one
    weights_gib: float | None = None  # override the weights size


@dataclass
class SizePlan:
    family: str
    kv_cache_dtype: str
    kv_bytes_per_token: float  # whole model, one token
    kv_bytes_per_token_per_gpu: float
    fixed_bytes_per_sequence_per_gpu: float
    weights_bytes: int
    weights_exact: bool
    tensor_parallel_size: int
    data_parallel_size: int
    replicas: int
    max_num_seqs: int
    seqs_per_replica_at_max_len: int
    kv_pool_bytes_per_gpu: float
    fits: bool
    preempts_at_max_len: bool
    is_moe: bool
    flags: list[str] = field(default_factory=list)
    execution: dict = field(default_factory=dict)
    deployment_env_vars: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # The model's context: tokens, source, max_position_embeddings, explanation.
    context: dict = field(default_factory=dict)
    # The MRCR variant the context allows (evalkit.benchmarks.mrcr.variants.choose_variant), if any.
    mrcr_variant: dict | None = None
    notes: list[str] = field(default_factory=list)  # said, but not a problem


def _tp_candidates(gpus_per_node: int, heads: int) -> list[int]:
    tps, tp = [], 1
    while tp <= gpus_per_node:
        if heads % tp == 0:
            tps.append(tp)
        tp *= 2
    return tps


def plan(ckpt: Checkpoint, req: SizeRequest) -> SizePlan:
    for name in ("gpu_mem_gib", "gpus_per_node", "max_model_len", "parallelism", "num_instances"):
        if getattr(req, name) <= 0:
            raise InputError(f"--{name.replace('_', '-')} must be positive")
    if not 0 < req.gpu_memory_utilization <= 1:
        raise InputError("--gpu-memory-utilization must be in (0, 1]")
    num_nodes = req.num_nodes or req.num_instances
    if num_nodes % req.num_instances:
        raise InputError(
            f"--num-nodes ({num_nodes}) must be divisible by --num-instances ({req.num_instances})"
        )
    gpus_per_instance = req.gpus_per_node * (num_nodes // req.num_instances)

    layout = layout_of(ckpt)
    kv_name, kv_bytes = resolve_kv_dtype(req.kv_cache_dtype, ckpt)
    state_bytes = dtype_bytes(ckpt.torch_dtype)
    if req.weights_gib is not None:
        weights, exact = int(req.weights_gib * GIB), True
    else:
        weights, exact = weights_bytes(ckpt)
    usable = req.gpu_mem_gib * req.gpu_memory_utilization * GIB
    overhead = req.overhead_gib * GIB
    warnings = list(layout.notes)

    def evaluate(tp: int) -> tuple[float, float, float, int]:
        per_token = kv_bytes_per_token(layout, kv_bytes, tp)
        fixed = fixed_bytes_per_sequence(layout, kv_bytes, state_bytes, tp)
        pool = usable - weights / tp - overhead
        per_seq = req.max_model_len * per_token + fixed
        return per_token, fixed, pool, int(pool // per_seq) if pool > 0 else 0

    if req.tensor_parallel_size is not None:
        tp = req.tensor_parallel_size
        if tp < 1 or tp > gpus_per_instance or gpus_per_instance % tp:
            raise InputError(
                f"--tensor-parallel-size {tp} must divide the {gpus_per_instance} GPUs "
                "of one instance"
            )
        if layout.num_attention_heads % tp:
            warnings.append(f"TP {tp} does not divide {layout.num_attention_heads} attention heads")
    else:
        candidates = _tp_candidates(req.gpus_per_node, layout.num_attention_heads)
        tp = next((t for t in candidates if evaluate(t)[3] >= 1), candidates[-1])
    per_token, fixed, pool, seqs = evaluate(tp)
    fits = seqs >= 1
    dp = gpus_per_instance // tp
    seqs_ceiling = max_num_seqs(req.parallelism, dp, req.num_instances)
    preempts = seqs_ceiling > seqs

    if layout.kind != "mla" and layout.kv_heads % tp and tp % layout.kv_heads:
        warnings.append(f"TP {tp} does not divide {layout.kv_heads} KV heads evenly")
    if layout.kind != "mla" and layout.kv_heads < tp:
        warnings.append(
            f"{layout.kv_heads} KV heads on TP {tp}: heads are replicated, KV per GPU "
            "does not shrink further"
        )
    if not exact:
        warnings.append(
            "weights estimated from config.json (pass --checkpoint DIR with "
            "model.safetensors.index.json, or --weights-gib, for the exact size)"
        )
    if not fits:
        warnings.append(
            f"one sequence of {req.max_model_len} tokens does not fit on {req.gpus_per_node} "
            "GPUs of one node at any power-of-two TP: lower --max-model-len, use bigger GPUs, "
            "or span nodes with pipeline parallelism (vllm_ray)"
        )
    elif preempts:
        # Advise an fp8 KV cache only where the cache is not fp8 already.
        remedies = "lower parallelism or raise TP"
        if not kv_name.startswith("fp8"):
            remedies += ", or use an fp8 KV cache if the checkpoint is calibrated"
        warnings.append(
            f"--max-num-seqs {seqs_ceiling} exceeds the {seqs} sequences per replica that fit "
            f"at {req.max_model_len} tokens: preemption is likely once long prompts pile up; "
            + remedies
        )
    if ckpt.kv_cache_quant != "fp8" and kv_name.startswith("fp8"):
        warnings.append(
            "fp8 KV cache requested but the checkpoint declares no calibrated KV quantization "
            "(hf_quant_config.json kv_cache_quant_algo / config.json kv_cache_scheme)"
        )

    flags = [f"--tensor-parallel-size {tp}"]
    if dp > 1:
        flags.append(f"--data-parallel-size {dp}")
    flags += [f"--max-model-len {req.max_model_len}", f"--max-num-seqs {seqs_ceiling}"]
    if kv_name.startswith("fp8"):
        flags.append("--kv-cache-dtype fp8")
    if ckpt.is_moe:
        flags.append("--enable-expert-parallel")
    if ckpt.needs_trust_remote_code:
        flags.append("--trust-remote-code")
    flags.append("--gpu-memory-utilization ${deployment.gpu_memory_utilization}")

    context = ckpt.context
    env, notes = {}, []
    warnings += _long_context_warnings(req.max_model_len, context, env, notes)
    choice = choose_variant(context.tokens, context.max_position_embeddings)

    return SizePlan(
        family=layout.family,
        kv_cache_dtype=kv_name,
        kv_bytes_per_token=kv_bytes_per_token(layout, kv_bytes, 1),
        kv_bytes_per_token_per_gpu=per_token,
        fixed_bytes_per_sequence_per_gpu=fixed,
        weights_bytes=weights,
        weights_exact=exact,
        tensor_parallel_size=tp,
        data_parallel_size=dp,
        replicas=dp * req.num_instances,
        max_num_seqs=seqs_ceiling,
        seqs_per_replica_at_max_len=seqs,
        kv_pool_bytes_per_gpu=pool,
        fits=fits,
        preempts_at_max_len=preempts,
        is_moe=ckpt.is_moe,
        flags=flags,
        execution={
            "num_nodes": num_nodes,
            "num_instances": req.num_instances,
            "gres": f"gpu:{req.gpus_per_node}",
            "gpu_memory_utilization": req.gpu_memory_utilization,
        },
        deployment_env_vars=env,
        warnings=warnings,
        context={
            "tokens": context.tokens,
            "source": context.source,
            "max_position_embeddings": context.max_position_embeddings,
            "explanation": context.explanation,
        },
        mrcr_variant=None
        if choice is None
        else {
            "config": choice.variant.config_path,
            "max_model_len": choice.max_model_len,
            "needs_long_override": choice.needs_long_override,
            "reason": choice.reason,
        },
        notes=notes,
    )


def _long_context_warnings(
    length: int, context: ContextSource, env: dict, notes: list[str]
) -> list[str]:
    """Serving above max_position_embeddings: the override, and whether the card vouches.

    vLLM refuses a --max-model-len above config.json's max_position_embeddings unless
    VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; whether that length is sound is the model card's word.
    A documented context covers a length up to the golden's answer room above it (the 1M
    MRCR envelope serves 1,100,000 on a 1,048,576-token card).
    """
    mpe = context.max_position_embeddings
    if mpe is None or length <= mpe:
        if context.documented and length > context.tokens + ANSWER_ROOM_TOKENS:
            return [
                f"--max-model-len {length} is beyond the documented context {context.tokens} "
                f"plus {ANSWER_ROOM_TOKENS} tokens of answer room"
            ]
        return []
    env["VLLM_ALLOW_LONG_MAX_MODEL_LEN"] = "lit:1"
    needs = (
        f"--max-model-len {length} exceeds config.json max_position_embeddings {mpe}: vLLM "
        "refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
    )
    if not context.documented:
        return [
            f"{needs}; max_position_embeddings is a runtime default, so confirm the context "
            "the model card documents and pass it as --context N"
        ]
    if length <= context.tokens + ANSWER_ROOM_TOKENS:
        notes.append(f"{needs} (set above); the model card documents {context.tokens}")
        return []
    return [
        f"{needs}, and it is beyond the documented context {context.tokens} plus "
        f"{ANSWER_ROOM_TOKENS} tokens of answer room"
    ]
