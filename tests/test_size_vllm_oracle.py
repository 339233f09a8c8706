"""`evalkit size`'s KV bytes per token against vLLM's own reading of config.json.

vLLM v0.26.0 (the templates' image) decides a model's KV layout in pure Python:
`vllm/transformers_utils/model_arch_config_convertor.py` `ModelArchConfigConvertorBase`
(`is_deepseek_mla`, `get_head_size`: kv_lora_rank + qk_rope_head_dim for MLA, else
head_dim or hidden_size / heads; `get_total_num_kv_heads`) with `getattr_iter` from
`vllm/config/utils.py`. The bytes follow from `vllm/v1/kv_cache_interface.py`: a full
attention page holds `2 * block_size * num_kv_heads * head_size * dtype_size` bytes, an
MLA page `block_size * head_size * dtype_size` (one latent, no V), and per GPU
`ModelConfig.get_num_kv_heads` keeps `max(1, total_kv_heads // tp)` heads (MLA: 1).

The test downloads the v0.26.0 wheel once (`pip download vllm==0.26.0 --no-deps
--only-binary :all:`, about 300 MB) into the cache beside the test venv (or
$EVALKIT_VLLM_WHEEL_DIR), reads those two modules out of it and runs them with empty
stand-ins for torch, transformers and the rest of vLLM. Nothing is installed or imported
from CUDA code. Configs are the attention shapes of the families the skill names (model
cards' config.json values).
"""

from __future__ import annotations

import sys
import types
import zipfile
from pathlib import Path

import pytest

from evalkit.checkpoint import Checkpoint
from evalkit.sizing import kv_bytes_per_token, layout_of
from helpers.oracle import cache_dir, ignore, load_module, pip_download, stand_ins

VLLM_VERSION = "0.26.0"
MODULES = {
    "vllm.config.utils": "vllm/config/utils.py",
    "vllm.transformers_utils.model_arch_config_convertor": (
        "vllm/transformers_utils/model_arch_config_convertor.py"
    ),
}
pytestmark = pytest.mark.slow

FAMILIES = {
    "llama-3-8b (GQA)": {
        "model_type": "llama",
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_size": 4096,
    },
    "qwen3-8b (GQA, explicit head_dim)": {
        "model_type": "qwen3",
        "num_hidden_layers": 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "hidden_size": 4096,
    },
    "glm-4.5 (GQA MoE)": {
        "model_type": "glm4_moe",
        "num_hidden_layers": 92,
        "num_attention_heads": 96,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "hidden_size": 5120,
        "n_routed_experts": 160,
    },
    "deepseek-v3 (MLA)": {
        "model_type": "deepseek_v3",
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "hidden_size": 7168,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "n_routed_experts": 256,
    },
    "kimi-k2 (MLA, deepseek_v3 type)": {
        "model_type": "kimi_k2",
        "num_hidden_layers": 61,
        "num_attention_heads": 64,
        "num_key_value_heads": 64,
        "hidden_size": 7168,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
    },
    "mistral-7b-like (no head_dim, MHA)": {
        "model_type": "mistral",
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "hidden_size": 4096,
    },
}


class _Logger:
    def __getattr__(self, name: str):
        return ignore


STAND_INS = (
    "torch",
    "safetensors",
    "safetensors.torch",
    "transformers",
    "vllm",
    "vllm.envs",
    "vllm.logger",
    "vllm.config",
    "vllm.config.model_arch",
    "vllm.transformers_utils",
    "vllm.transformers_utils.config",
    "vllm.utils",
    "vllm.utils.torch_utils",
)


@pytest.fixture(scope="module")
def convertor(tmp_path_factory):
    """vLLM's ModelArchConfigConvertorBase, loaded from the wheel's source."""
    wheel = pip_download(
        f"vllm=={VLLM_VERSION}",
        cache_dir("EVALKIT_VLLM_WHEEL_DIR"),
        f"vllm-{VLLM_VERSION}-*.whl",
        "--only-binary",
        ":all:",
        timeout=1800,
    )
    out = tmp_path_factory.mktemp("vllm-src")
    loaded = {}
    with stand_ins(STAND_INS, MODULES):
        sys.modules["vllm.envs"].VLLM_MLA_DISABLE = False  # the default
        sys.modules["vllm.logger"].init_logger = lambda _name: _Logger()
        with zipfile.ZipFile(wheel) as zf:
            for name, member in MODULES.items():
                path = out / Path(member).name
                path.write_bytes(zf.read(member))
                loaded[name] = load_module(name, path)
    module = loaded["vllm.transformers_utils.model_arch_config_convertor"]
    return module.ModelArchConfigConvertorBase


def vllm_kv_bytes_per_token(convertor_cls, config: dict, tp: int, dtype_size: int) -> int:
    """Per-GPU KV bytes one token adds, the way vLLM v0.26.0 sizes its pages."""
    hf = types.SimpleNamespace(**config)
    conv = convertor_cls(hf, hf)
    layers = conv.get_num_hidden_layers()
    head_size = conv.get_head_size()
    if conv.is_deepseek_mla():
        return layers * head_size * dtype_size  # MLAAttentionSpec: one latent per token
    kv_heads = max(1, conv.get_total_num_kv_heads() // tp)  # ModelConfig.get_num_kv_heads
    return layers * 2 * kv_heads * head_size * dtype_size  # FullAttentionSpec


@pytest.mark.parametrize("tp", [1, 2, 8])
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("dtype_size", [2, 1], ids=["bf16-kv", "fp8-kv"])
def test_kv_bytes_per_token_match_vllm(convertor, family, tp, dtype_size):
    config = FAMILIES[family]
    ours = kv_bytes_per_token(layout_of(Checkpoint(config=dict(config))), float(dtype_size), tp)
    theirs = vllm_kv_bytes_per_token(convertor, config, tp, dtype_size)
    assert ours == theirs, (family, tp, dtype_size)


def test_the_oracle_sees_mla_and_gqa_apart(convertor):
    """Guard against a stand-in hollowing out vLLM's logic: the two layouts differ."""
    mla = convertor(*[types.SimpleNamespace(**FAMILIES["deepseek-v3 (MLA)"])] * 2)
    gqa = convertor(*[types.SimpleNamespace(**FAMILIES["llama-3-8b (GQA)"])] * 2)
    assert (mla.is_deepseek_mla(), mla.get_head_size()) == (True, 576)
    assert (gqa.is_deepseek_mla(), gqa.get_head_size(), gqa.get_total_num_kv_heads()) == (
        False,
        128,
        8,
    )
