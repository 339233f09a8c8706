"""Where a model keeps per-sequence state, and the bytes it costs per token and per
sequence on one GPU.

Memory figures are bytes unless a name says otherwise; "per GPU" figures assume vLLM's
tensor-parallel sharding (attention KV heads split across TP ranks, replicated when a
model has fewer KV heads than ranks; an MLA latent is replicated on every rank).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalkit.checkpoint import Checkpoint
from evalkit.errors import InputError

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
        # layers i < num_layers with i % period == offset, counted without a loop over them
        fits = isinstance(offset, int) and 0 <= offset < min(period, num_layers)
        attn = (num_layers - offset + period - 1) // period if fits else 0
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
