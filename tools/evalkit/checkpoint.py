"""What a Hugging Face checkpoint declares about itself (config.json, hf_quant_config.json).

Read-only; used by `preflight --checkpoint` and `size`. Multimodal configs nest the
language model under `text_config` (or `llm_config`); those fields win when present.

The model's context is a fact about the model, not about config.json: its
`max_position_embeddings` is the length the runtime assumes by default, which a model card
may exceed (the Nemotron 3 Nano family ships 262144 there and documents 1M tokens). The
"documented context" comes from the card, given by the user (`--context N`); without it
`max_position_embeddings` is the floor we fall back on (`context_source`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import expect_mapping, load_json

MOE_KEYS = ("num_experts", "num_local_experts", "n_routed_experts")


@dataclass
class Checkpoint:
    config: dict[str, Any]
    quant_config: dict[str, Any] | None = None
    config_path: Path | None = None
    quant_config_path: Path | None = None
    safetensors_index: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    documented_context: int | None = None  # from the model card (--context), if given

    @property
    def context(self) -> ContextSource:
        return context_source(self, self.documented_context)

    @property
    def text_config(self) -> dict[str, Any]:
        for key in ("text_config", "llm_config", "language_config"):
            nested = self.config.get(key)
            if isinstance(nested, dict):
                return {**self.config, **nested}
        return self.config

    def _int(self, key: str) -> int | None:
        value = self.text_config.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{key} must be an integer, found {value!r}", self.config_path)
        return value

    @property
    def max_position_embeddings(self) -> int | None:
        return self._int("max_position_embeddings")

    @property
    def num_attention_heads(self) -> int | None:
        return self._int("num_attention_heads")

    @property
    def num_key_value_heads(self) -> int | None:
        return self._int("num_key_value_heads") or self.num_attention_heads

    @property
    def is_moe(self) -> bool:
        cfg = self.text_config
        return any(isinstance(cfg.get(k), int) and cfg.get(k, 0) > 1 for k in MOE_KEYS)

    @property
    def needs_trust_remote_code(self) -> bool:
        return bool(self.config.get("auto_map"))

    @property
    def torch_dtype(self) -> str | None:
        value = self.text_config.get("torch_dtype") or self.text_config.get("dtype")
        return str(value) if value else None

    @property
    def kv_cache_quant(self) -> str | None:
        """The KV-cache quantization the checkpoint was calibrated for ("fp8"), else None.

        ModelOpt writes it to hf_quant_config.json (quantization.kv_cache_quant_algo) and,
        in newer exports, to config.json (quantization_config.kv_cache_scheme).
        """
        if self.quant_config:
            algo = (self.quant_config.get("quantization") or {}).get("kv_cache_quant_algo")
            if algo:
                return str(algo).lower()
        qc = self.config.get("quantization_config")
        if isinstance(qc, dict):
            scheme = qc.get("kv_cache_scheme")
            if isinstance(scheme, dict):
                bits = scheme.get("num_bits")
                kind = str(scheme.get("type", "float")).lower()
                if bits == 8 and kind == "float":
                    return "fp8"
                if bits:
                    return f"{kind}{bits}"
            elif isinstance(scheme, str) and scheme:
                return scheme.lower()
        return None

    @property
    def weight_quant(self) -> str | None:
        """Weight quantization algorithm (e.g. FP8, NVFP4), from either file."""
        if self.quant_config:
            algo = (self.quant_config.get("quantization") or {}).get("quant_algo")
            if algo:
                return str(algo).upper()
        qc = self.config.get("quantization_config")
        if isinstance(qc, dict):
            algo = qc.get("quant_algo") or qc.get("quant_method")
            if algo:
                return str(algo).upper()
        return None


@dataclass(frozen=True)
class ContextSource:
    """The context length variant choice and serving checks use, and where it came from."""

    tokens: int | None  # None: neither the card nor config.json says
    documented: bool  # True: from the model card (given by the user), else the config floor
    max_position_embeddings: int | None

    @property
    def source(self) -> str:
        if self.documented:
            return "model card (--context)"
        return "config.json max_position_embeddings" if self.tokens else "unknown"

    @property
    def explanation(self) -> str:
        """One line: which value is used and why (names both when they differ)."""
        mpe = self.max_position_embeddings
        if self.tokens is None:
            return "unknown: config.json has no max_position_embeddings and no --context given"
        if not self.documented:
            return (
                f"{self.tokens} tokens from config.json max_position_embeddings (no --context: "
                "a runtime default; the model card may document more)"
            )
        if mpe is None or mpe == self.tokens:
            return f"{self.tokens} tokens documented on the model card (--context)"
        if mpe < self.tokens:
            return (
                f"{self.tokens} tokens documented on the model card (--context); config.json "
                f"max_position_embeddings {mpe} is a runtime default below it, so serving above "
                f"{mpe} needs VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
            )
        return (
            f"{self.tokens} tokens documented on the model card (--context), used instead of "
            f"config.json max_position_embeddings {mpe}"
        )


def context_source(ckpt: Checkpoint | None, documented: int | None = None) -> ContextSource:
    """The documented context when the user gave one, else `max_position_embeddings`."""
    if documented is not None and (isinstance(documented, bool) or documented <= 0):
        raise InputError(f"--context must be a positive number of tokens, found {documented!r}")
    mpe = ckpt.max_position_embeddings if ckpt is not None else None
    if documented is not None:
        return ContextSource(documented, True, mpe)
    return ContextSource(mpe, False, mpe)


def load_checkpoint(
    directory: str | Path | None = None,
    config_path: str | Path | None = None,
    quant_config_path: str | Path | None = None,
    *,
    documented_context: int | None = None,
) -> Checkpoint:
    """Load from a checkpoint directory, or from explicit file paths (which win).

    `documented_context` is the model card's context length (`--context N`), if known.
    """
    directory = Path(directory) if directory is not None else None
    if directory is not None and not directory.is_dir():
        raise InputError("checkpoint directory not found", directory)
    if config_path is None:
        if directory is None:
            raise InputError("no config.json given")
        config_path = directory / "config.json"
    config_path = Path(config_path)
    config = expect_mapping(load_json(config_path), config_path)

    quant = None
    if quant_config_path is None and directory is not None:
        candidate = directory / "hf_quant_config.json"
        quant_config_path = candidate if candidate.exists() else None
    if quant_config_path is not None:
        quant_config_path = Path(quant_config_path)
        quant = expect_mapping(load_json(quant_config_path), quant_config_path)

    index = None
    if directory is not None:
        index_path = directory / "model.safetensors.index.json"
        if index_path.exists():
            index = expect_mapping(load_json(index_path), index_path)

    return Checkpoint(
        config=config,
        quant_config=quant,
        config_path=config_path,
        quant_config_path=Path(quant_config_path) if quant_config_path else None,
        safetensors_index=index,
        documented_context=documented_context,
    )
