"""Serving-capacity formulas shared by `evalkit size` and `evalkit preflight`.

One implementation of each formula lives here so the two commands never disagree.
Memory figures are bytes unless a name says otherwise; "per GPU" figures assume vLLM's
tensor-parallel sharding (attention KV heads split across TP ranks, replicated when a
model has fewer KV heads than ranks; an MLA latent is replicated on every rank).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from evalkit.checkpoint import MOE_KEYS, Checkpoint, ContextSource
from evalkit.errors import InputError
from evalkit.mrcr.variants import ANSWER_ROOM_TOKENS, choose_variant

GIB = 1024**3

DTYPE_BYTES = {
    "float32": 4.0,
    "fp32": 4.0,
    "float16": 2.0,
    "fp16": 2.0,
    "half": 2.0,
    "bfloat16": 2.0,
    "bf16": 2.0,
    "auto": 2.0,
    "fp8": 1.0,
    "fp8_e4m3": 1.0,
    "fp8_e5m2": 1.0,
    "float8_e4m3fn": 1.0,
}

# Bytes per weight for quantized formats. NVFP4 stores 4-bit values plus one FP8 scale per
# 16-element block: 4 + 8/16 = 4.5 bits. Embeddings and the LM head stay unquantized.
WEIGHT_BYTES = {"NVFP4": 0.5625, "W4A16_AWQ": 0.5625, "INT4_AWQ": 0.5625, "FP8": 1.0}

DEFAULT_OVERHEAD_GIB = 4.0  # activations, CUDA graphs and allocator slack per GPU (assumed)


def max_num_seqs(parallelism: int, data_parallel: int = 1, num_instances: int = 1) -> int:
    """Per-replica sequence ceiling: ceil(parallelism / (num_instances x DP)).

    `parallelism` is the client's total concurrency across all instances; each of the
    num_instances x DP replicas then sees at most this many requests at once.
    """
    if parallelism < 1 or data_parallel < 1 or num_instances < 1:
        raise ValueError("parallelism, data_parallel and num_instances must be >= 1")
    return math.ceil(parallelism / (data_parallel * num_instances))


@dataclass(frozen=True)
class Layout:
    """Where a model keeps per-sequence state."""

    kind: str  # "attention" (MHA/GQA) or "mla"
    attention_layers: int  # layers with one KV entry per token, for every token
    num_attention_heads: int
    kv_heads: int = 0
    head_dim: int = 0
    latent_dim: int = 0  # MLA: kv_lora_rank + qk_rope_head_dim
    sliding_layers: int = 0  # attention bounded by a window: at most `sliding_window` tokens
    sliding_window: int = 0
    recurrent_layers: int = 0  # Mamba / linear attention: fixed state per sequence
    recurrent_elems_per_layer: int | None = 0  # None when the config does not say
    notes: tuple[str, ...] = ()

    @property
    def family(self) -> str:
        if self.recurrent_layers:
            return "hybrid (attention + recurrent)"
        if self.sliding_layers:
            return "hybrid (full + sliding-window attention)"
        if self.kind == "mla":
            return "mla"
        return "mha" if self.kv_heads == self.num_attention_heads else "gqa"


def _positive_int(cfg: dict, key: str, source: Checkpoint) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        found = "missing" if value is None else repr(value)
        raise InputError(
            f"config field {key} must be a positive integer (found {found})", source.config_path
        )
    return value


def _recurrent_elems(cfg: dict) -> int | None:
    """Elements of recurrent state one layer keeps per sequence (conv + SSM), if known."""
    if "mamba_num_heads" in cfg and "ssm_state_size" in cfg:  # Mamba-2 (Nemotron-H style)
        heads, head_dim = cfg["mamba_num_heads"], cfg.get("mamba_head_dim", 64)
        state, groups = cfg["ssm_state_size"], cfg.get("n_groups", 1)
        conv = cfg.get("conv_kernel", 4)
        inner = heads * head_dim
        return inner * state + (conv - 1) * (inner + 2 * groups * state)
    if "mamba_d_state" in cfg:  # Mamba-1 (Jamba style)
        inner = cfg.get("mamba_expand", 2) * cfg["hidden_size"]
        return inner * cfg["mamba_d_state"] + (cfg.get("mamba_d_conv", 4) - 1) * inner
    if "linear_num_value_heads" in cfg:  # gated delta-net linear attention (Qwen3-Next style)
        nv, nk = cfg["linear_num_value_heads"], cfg.get("linear_num_key_heads", 0)
        dk, dv = cfg.get("linear_key_head_dim", 128), cfg.get("linear_value_head_dim", 128)
        conv = cfg.get("linear_conv_kernel_dim", 4)
        return nv * dk * dv + (conv - 1) * (2 * nk * dk + nv * dv)
    return None


def _classify_layers(cfg: dict, num_layers: int) -> tuple[int, int, int]:
    """(attention, sliding, recurrent) layer counts from the config's layer description."""
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return pattern.count("*"), 0, pattern.count("M")
    # The order vLLM 0.26 reads them in (ModelConfig.get_num_layers_by_block_type).
    for key in ("layers_block_type", "attn_type_list", "layer_types"):
        types = cfg.get(key)
        if not isinstance(types, list) or not types:
            continue
        if key == "attn_type_list":  # MiniMax: 1 softmax attention, 0 lightning (linear)
            attn = sum(1 for t in types if t == 1)
            return attn, 0, len(types) - attn
        attn = sliding = recurrent = 0
        for t in map(str, types):
            if "sliding" in t or "chunked" in t:
                sliding += 1
            elif "linear" in t or "mamba" in t or "ssm" in t or "recurrent" in t:
                recurrent += 1
            elif "attention" in t:
                attn += 1
        return attn, sliding, recurrent
    period = cfg.get("attn_layer_period")
    if isinstance(period, int) and period > 0:  # Jamba: one attention layer per period
        offset = cfg.get("attn_layer_offset", 0)
        attn = sum(1 for i in range(num_layers) if i % period == offset)
        return attn, 0, num_layers - attn
    return num_layers, 0, 0


def layout_of(ckpt: Checkpoint) -> Layout:
    cfg = ckpt.text_config
    layers = _positive_int(cfg, "num_hidden_layers", ckpt)
    heads = _positive_int(cfg, "num_attention_heads", ckpt)
    attn, sliding, recurrent = _classify_layers(cfg, layers)
    window = cfg.get("sliding_window") or 0
    if sliding and not window:
        attn, sliding = attn + sliding, 0  # no window given: count them as full attention
    notes: list[str] = []
    rec_elems = _recurrent_elems(cfg) if recurrent else 0
    if recurrent and rec_elems is None:
        notes.append(
            f"{recurrent} recurrent layers but no state-size fields in config.json; "
            "their per-sequence state is not counted"
        )
    if isinstance(cfg.get("kv_lora_rank"), int):
        latent = cfg["kv_lora_rank"] + cfg.get("qk_rope_head_dim", 64)
        return Layout(
            kind="mla",
            attention_layers=attn,
            num_attention_heads=heads,
            latent_dim=latent,
            recurrent_layers=recurrent,
            recurrent_elems_per_layer=rec_elems,
            notes=tuple(notes),
        )
    kv_heads = cfg.get("num_key_value_heads") or heads
    head_dim = cfg.get("head_dim") or cfg.get("attention_head_dim")
    if not head_dim:
        head_dim = _positive_int(cfg, "hidden_size", ckpt) // heads
    return Layout(
        kind="attention",
        attention_layers=attn,
        num_attention_heads=heads,
        kv_heads=int(kv_heads),
        head_dim=int(head_dim),
        sliding_layers=sliding,
        sliding_window=int(window) if sliding else 0,
        recurrent_layers=recurrent,
        recurrent_elems_per_layer=rec_elems,
        notes=tuple(notes),
    )


def _kv_per_token_per_layer(layout: Layout, kv_bytes: float, tp: int) -> float:
    if layout.kind == "mla":
        return layout.latent_dim * kv_bytes  # one latent per token, same on every rank
    return 2 * math.ceil(layout.kv_heads / tp) * layout.head_dim * kv_bytes  # K and V


def kv_bytes_per_token(layout: Layout, kv_bytes: float, tp: int = 1) -> float:
    """KV-cache bytes one token adds across the unbounded attention layers (per GPU at tp)."""
    return layout.attention_layers * _kv_per_token_per_layer(layout, kv_bytes, tp)


def fixed_bytes_per_sequence(
    layout: Layout, kv_bytes: float, state_bytes: float, tp: int = 1
) -> float:
    """Per-sequence memory that does not grow with length: windowed KV + recurrent state."""
    window = layout.sliding_layers * layout.sliding_window
    windowed = window * _kv_per_token_per_layer(layout, kv_bytes, tp)
    elems = layout.recurrent_elems_per_layer or 0
    recurrent = layout.recurrent_layers * math.ceil(elems / tp) * state_bytes
    return windowed + recurrent


def dtype_bytes(name: str | None, default: float = 2.0) -> float:
    if not name:
        return default
    return DTYPE_BYTES.get(str(name).lower().removeprefix("torch."), default)


def resolve_kv_dtype(requested: str, ckpt: Checkpoint) -> tuple[str, float]:
    """`auto` follows the checkpoint's calibrated KV quantization, else its weight dtype."""
    if requested == "auto":
        if ckpt.kv_cache_quant == "fp8":
            return "fp8", 1.0
        name = (ckpt.torch_dtype or "bfloat16").lower().removeprefix("torch.")
        return name, dtype_bytes(name)
    return requested, dtype_bytes(requested)


def estimate_parameters(ckpt: Checkpoint) -> tuple[int, int]:
    """(embedding parameters, all other parameters), estimated from config.json alone."""
    cfg = ckpt.text_config
    hidden = _positive_int(cfg, "hidden_size", ckpt)
    layers = _positive_int(cfg, "num_hidden_layers", ckpt)
    vocab = cfg.get("vocab_size") or 0
    embed = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    layout = layout_of(ckpt)
    heads = layout.num_attention_heads

    if layout.kind == "mla":
        nope, rope = cfg.get("qk_nope_head_dim", 128), cfg.get("qk_rope_head_dim", 64)
        v_dim, q_rank = cfg.get("v_head_dim", 128), cfg.get("q_lora_rank")
        q = (
            hidden * q_rank + q_rank * heads * (nope + rope)
            if q_rank
            else hidden * heads * (nope + rope)
        )
        kv_rank = cfg["kv_lora_rank"]
        attn = q + hidden * (kv_rank + rope) + kv_rank * heads * (nope + v_dim)
        attn += heads * v_dim * hidden
    else:
        hd, kvh = layout.head_dim, layout.kv_heads
        attn = 2 * hidden * heads * hd + 2 * hidden * kvh * hd

    inter = cfg.get("intermediate_size") or 4 * hidden
    # Gated MLPs (SwiGLU) have three matrices; squared-ReLU ones (Nemotron-H) have two.
    act = str(cfg.get("mlp_hidden_act") or cfg.get("hidden_act") or "silu")
    mats = 2 if act in ("relu2", "relu_squared") else 3
    pattern = cfg.get("hybrid_override_pattern")
    # A hybrid pattern marks MLP ("-") and MoE ("E") blocks as layers of their own.
    mlp_layers = (
        pattern.count("-") + pattern.count("E") if isinstance(pattern, str) and pattern else layers
    )
    experts = next((cfg[k] for k in MOE_KEYS if isinstance(cfg.get(k), int)), 0)
    if experts > 1:
        moe_inter = cfg.get("moe_intermediate_size") or inter
        shared = cfg.get("n_shared_experts") or 0
        shared_inter = cfg.get("shared_expert_intermediate_size") or shared * moe_inter
        moe = experts * mats * hidden * moe_inter + mats * hidden * shared_inter
        moe += hidden * experts  # router
        dense_first = min(cfg.get("first_k_dense_replace") or 0, mlp_layers)
        mlp_total = dense_first * mats * hidden * inter + (mlp_layers - dense_first) * moe
    else:
        mlp_total = mlp_layers * mats * hidden * inter

    n_attn = layout.attention_layers + layout.sliding_layers
    if layout.recurrent_layers:
        # Hybrid: attention layers carry attention weights, recurrent layers roughly the
        # in/out projections of a 2x-expanded mixer; MLP blocks as configured above.
        mixer = layout.recurrent_layers * 3 * hidden * 2 * hidden
        return embed, n_attn * attn + mixer + mlp_total
    return embed, layers * attn + mlp_total


def weights_bytes(ckpt: Checkpoint) -> tuple[int, bool]:
    """(bytes, exact): the safetensors index's total_size, else an estimate from config."""
    index = ckpt.safetensors_index or {}
    total = (index.get("metadata") or {}).get("total_size")
    if isinstance(total, (int, float)) and total > 0:
        return int(total), True
    embed, body = estimate_parameters(ckpt)
    dense = dtype_bytes(ckpt.torch_dtype)
    per_weight = WEIGHT_BYTES.get(ckpt.weight_quant or "", dense)
    return int(embed * dense + body * per_weight), False


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
    # The MRCR variant the context allows (evalkit.mrcr.variants.choose_variant), if any.
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
