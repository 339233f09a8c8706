"""The bytes a checkpoint's weights take: the safetensors index's total when it has one,
else an estimate of the parameter count from config.json times the bytes per weight."""

from __future__ import annotations

from evalkit.checkpoint import MOE_KEYS, Checkpoint
from evalkit.sizing.layout import _positive_int, dtype_bytes, layout_of

# Bytes per weight for quantized formats. NVFP4 stores 4-bit values plus one FP8 scale per
# 16-element block: 4 + 8/16 = 4.5 bits. Embeddings and the LM head stay unquantized.
WEIGHT_BYTES = {"NVFP4": 0.5625, "W4A16_AWQ": 0.5625, "INT4_AWQ": 0.5625, "FP8": 1.0}


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
