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
--only-binary :all:`, about 300 MB) into ~/.cache/evalkit-tests/oracles (or
$EVALKIT_VLLM_WHEEL_DIR), reads those two modules out of it and runs them with empty
stand-ins for torch, transformers and the rest of vLLM. Nothing is installed or imported
from CUDA code. Configs are the attention shapes of the families the skill names (model
cards' config.json values).
"""

from __future__ import annotations

import ast
import json
import re
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
pytestmark = [pytest.mark.slow, pytest.mark.network]

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


# ---- hybrids: which layers hold a KV cache -------------------------------------------------
#
# vLLM v0.26.0 counts a hybrid's attention layers in `ModelConfig.get_num_layers_by_block_type`
# (vllm/config/model.py): `layers_block_type` of the config (Nemotron-H: a property of vLLM's
# own NemotronHConfig, vllm/transformers_utils/configs/nemotron_h.py, read off
# `hybrid_override_pattern`), else MiniMax's `attn_type_list` (1 = softmax attention), else
# `layer_types` (Qwen3-Next: "full_attention"). Only those layers grow with the context; the
# recurrent ones hold a fixed state per sequence. The test runs that method, cut out of the
# wheel's source with `ast`, on a stand-in `self` that says "hybrid" (what vLLM reads off
# the model class) and spans every layer (one pipeline stage).

NEMOTRON_FIXTURE = Path(__file__).parent / "fixtures/init/nemotron3-nano-nvfp4/config.json"
HYBRIDS = {
    # Qwen3-Next-80B-A3B's card: 48 layers, full attention every 4th (layer_types spelled
    # out as transformers' Qwen3NextConfig fills it).
    "qwen3-next (gated delta-net + attention)": {
        "model_type": "qwen3_next",
        "num_hidden_layers": 48,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "hidden_size": 2048,
        "linear_num_value_heads": 32,
        "linear_num_key_heads": 16,
    },
    # MiniMax-Text-01 / M1 style: softmax attention every 8th of 80 layers, lightning
    # (linear) attention elsewhere. Shape from the public configs; the count is what matters.
    "minimax (lightning + softmax attention)": {
        "model_type": "minimax",
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "hidden_size": 6144,
        "attn_type_list": [0, 0, 0, 0, 0, 0, 0, 1] * 10,
    },
}
HYBRIDS["qwen3-next (gated delta-net + attention)"]["layer_types"] = [
    "full_attention" if i % 4 == 3 else "linear_attention" for i in range(48)
]


def _method_from_source(source: str, cls: str, name: str, env: dict):
    """One method of a class in a module's source, compiled on its own."""
    tree = ast.parse(source)
    (klass,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    (func,) = [n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == name]
    module = ast.Module(body=[func], type_ignores=[])
    namespace = dict(env)
    exec(compile(module, f"<vllm {cls}.{name}>", "exec"), namespace)  # vLLM's own code
    return namespace[name]


@pytest.fixture(scope="module")
def hybrid_oracle(convertor, tmp_path_factory):
    """(attention layers, the config vLLM builds) for a config dict, as vLLM v0.26.0 sees it."""
    wheel = next(cache_dir("EVALKIT_VLLM_WHEEL_DIR").glob(f"vllm-{VLLM_VERSION}-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        model_src = zf.read("vllm/config/model.py").decode()
        nemotron_src = zf.read("vllm/transformers_utils/configs/nemotron_h.py")
    count = _method_from_source(
        model_src,
        "ModelConfig",
        "get_num_layers_by_block_type",
        {"ParallelConfig": object, "LayerBlockType": str},
    )
    path = tmp_path_factory.mktemp("vllm-hybrid") / "nemotron_h.py"
    path.write_bytes(nemotron_src)
    with stand_ins(
        (
            "transformers",
            "transformers.configuration_utils",
            "transformers.utils",
            "transformers.utils.logging",
        )
    ):
        sys.modules["regex"] = re  # vLLM imports `regex as re` for one re.match
        try:
            nemotron_h = load_module("vllm_oracle_nemotron_h", path)
        finally:
            sys.modules.pop("regex", None)

    def oracle(config: dict):
        if config.get("model_type") == "nemotron_h":
            hf = nemotron_h.NemotronHConfig(**config)
        else:
            hf = types.SimpleNamespace(**config)
        layers = hf.num_hidden_layers
        model = types.SimpleNamespace(
            is_hybrid=True,
            has_noops=False,
            is_attention_free=False,
            hf_config=hf,
            hf_text_config=hf,
            model_arch_config=types.SimpleNamespace(text_model_type=config["model_type"]),
            get_layers_start_end_indices=lambda _parallel: (0, layers),
            get_num_layers=lambda _parallel: layers,
        )
        return count(model, None, "attention"), hf

    return oracle


def _hybrid_configs() -> dict[str, dict]:
    return {
        "nemotron-3-nano (Mamba-2 + attention, init fixture)": json.loads(
            NEMOTRON_FIXTURE.read_text()
        ),
        **HYBRIDS,
    }


@pytest.mark.parametrize("tp", [1, 2, 8])
@pytest.mark.parametrize("family", sorted(_hybrid_configs()))
def test_hybrid_kv_bytes_per_token_match_vllm(convertor, hybrid_oracle, family, tp):
    config = _hybrid_configs()[family]
    attention_layers, hf = hybrid_oracle(config)
    layout = layout_of(Checkpoint(config=dict(config)))
    assert layout.attention_layers == attention_layers, family
    conv = convertor(hf, hf)  # head size and KV heads from the config vLLM built
    kv_heads = max(1, conv.get_total_num_kv_heads() // tp)
    theirs = attention_layers * 2 * kv_heads * conv.get_head_size() * 2  # BF16 KV
    assert kv_bytes_per_token(layout, 2.0, tp) == theirs, (family, tp)


def test_the_hybrid_oracle_counts_what_the_configs_say(hybrid_oracle):
    """Guard against stand-ins hollowing out vLLM's method: the counts are the patterns'."""
    configs = _hybrid_configs()
    nano = configs["nemotron-3-nano (Mamba-2 + attention, init fixture)"]
    assert hybrid_oracle(nano)[0] == nano["hybrid_override_pattern"].count("*") == 6
    assert hybrid_oracle(HYBRIDS["qwen3-next (gated delta-net + attention)"])[0] == 12
    assert hybrid_oracle(HYBRIDS["minimax (lightning + softmax attention)"])[0] == 10
