"""`evalkit size`: hand-computed KV and topology figures for each architecture family."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.checkpoint import Checkpoint
from evalkit.sizing import (
    GIB,
    SizeRequest,
    fixed_bytes_per_sequence,
    kv_bytes_per_token,
    layout_of,
    max_num_seqs,
    plan,
)
from helpers.tier import examples

DENSE_MHA = {  # Llama-2-7B shape: no num_key_value_heads, head_dim from hidden/heads
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "vocab_size": 32000,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 4096,
}
GQA = {  # Llama-3-8B shape
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 131072,
}
MLA = {  # DeepSeek-V3 attention shape
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "hidden_size": 7168,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "q_lora_rank": 1536,
    "n_routed_experts": 256,
    "moe_intermediate_size": 2048,
    "n_shared_experts": 1,
    "first_k_dense_replace": 3,
    "intermediate_size": 18432,
    "vocab_size": 129280,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 163840,
}
HYBRID_MAMBA = {  # Nemotron-H style pattern: 2 attention layers, 3 Mamba-2 layers
    "hybrid_override_pattern": "M*M-M*",
    "num_hidden_layers": 6,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_size": 4096,
    "mamba_num_heads": 64,
    "mamba_head_dim": 64,
    "ssm_state_size": 128,
    "n_groups": 8,
    "conv_kernel": 4,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 262144,
}


def ckpt(config: dict, quant: dict | None = None, index: dict | None = None) -> Checkpoint:
    return Checkpoint(config=config, quant_config=quant, safetensors_index=index)


def test_dense_mha_kv_per_token():
    # 32 layers x (K+V) x 32 heads x 128 dims x 2 bytes
    layout = layout_of(ckpt(DENSE_MHA))
    assert layout.family == "mha"
    assert kv_bytes_per_token(layout, 2.0) == 32 * 2 * 32 * 128 * 2 == 524288


def test_gqa_kv_per_token_and_tp_sharding():
    layout = layout_of(ckpt(GQA))
    assert layout.family == "gqa"
    assert kv_bytes_per_token(layout, 2.0) == 32 * 2 * 8 * 128 * 2 == 131072
    assert kv_bytes_per_token(layout, 2.0, tp=2) == 65536
    # 8 KV heads on 16 ranks: each rank still holds one head (replication)
    assert kv_bytes_per_token(layout, 2.0, tp=16) == 32 * 2 * 1 * 128 * 2


def test_mla_latent_is_not_sharded():
    layout = layout_of(ckpt(MLA))
    assert layout.family == "mla"
    assert kv_bytes_per_token(layout, 2.0) == 61 * (512 + 64) * 2 == 70272
    assert kv_bytes_per_token(layout, 2.0, tp=8) == 70272


def test_hybrid_counts_only_attention_layers_plus_recurrent_state():
    layout = layout_of(ckpt(HYBRID_MAMBA))
    assert (layout.attention_layers, layout.recurrent_layers) == (2, 3)
    assert kv_bytes_per_token(layout, 2.0) == 2 * 2 * 8 * 128 * 2 == 8192
    inner = 64 * 64
    per_layer = inner * 128 + (4 - 1) * (inner + 2 * 8 * 128)  # SSM + conv state
    assert per_layer == 542720
    assert fixed_bytes_per_sequence(layout, 2.0, 2.0) == 3 * per_layer * 2


def test_minimax_attn_type_list_marks_the_softmax_layers():
    # vLLM 0.26 counts `t == 1` of attn_type_list as attention (the oracle test runs its
    # code); the lightning-attention layers have a fixed state this config does not size.
    minimax = {**GQA, "num_hidden_layers": 8, "attn_type_list": [0, 0, 0, 1, 0, 0, 0, 1]}
    layout = layout_of(ckpt(minimax))
    assert (layout.attention_layers, layout.recurrent_layers) == (2, 6)
    assert kv_bytes_per_token(layout, 2.0) == 2 * 2 * 8 * 128 * 2
    assert any("6 recurrent layers but no state-size fields" in n for n in layout.notes)


def test_layer_types_with_sliding_window_and_linear_attention():
    gemma_like = {
        **GQA,
        "num_hidden_layers": 3,
        "layer_types": ["sliding_attention", "sliding_attention", "full_attention"],
        "sliding_window": 1024,
    }
    layout = layout_of(ckpt(gemma_like))
    assert (layout.attention_layers, layout.sliding_layers) == (1, 2)
    per_layer_token = 2 * 8 * 128 * 2
    assert kv_bytes_per_token(layout, 2.0) == per_layer_token
    assert fixed_bytes_per_sequence(layout, 2.0, 2.0) == 2 * 1024 * per_layer_token

    next_like = {
        **GQA,
        "num_hidden_layers": 4,
        "layer_types": ["linear_attention"] * 3 + ["full_attention"],
        "linear_num_value_heads": 32,
        "linear_num_key_heads": 16,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    }
    layout = layout_of(ckpt(next_like))
    assert (layout.attention_layers, layout.recurrent_layers) == (1, 3)
    state = 32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)
    assert fixed_bytes_per_sequence(layout, 2.0, 2.0) == 3 * state * 2


def test_auto_kv_dtype_follows_calibrated_fp8():
    quant = {"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"}}
    req = SizeRequest(gpu_mem_gib=80, gpus_per_node=8, max_model_len=8192, parallelism=64)
    fp8 = plan(ckpt(GQA, quant), req)
    bf16 = plan(ckpt(GQA), req)
    assert fp8.kv_cache_dtype == "fp8" and "--kv-cache-dtype fp8" in fp8.flags
    assert fp8.kv_bytes_per_token * 2 == bf16.kv_bytes_per_token


GOLDEN_1M = SizeRequest(  # the golden MRCR envelope: 1100000 tokens, 4 x 4-GPU nodes
    gpu_mem_gib=180,
    gpus_per_node=4,
    max_model_len=1_100_000,
    parallelism=256,
    num_instances=4,
    num_nodes=4,
    tensor_parallel_size=2,
    gpu_memory_utilization=0.95,
)


def test_golden_mrcr_shape_gives_32_seqs_per_replica():
    # 4 nodes x (TP2 x DP2) on 4-GPU nodes, parallelism 256 -> 8 replicas -> 32 each.
    result = plan(ckpt(HYBRID_MAMBA), GOLDEN_1M)
    assert (result.tensor_parallel_size, result.data_parallel_size) == (2, 2)
    assert result.replicas == 8
    assert result.max_num_seqs == 32
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in result.deployment_env_vars


def test_documented_context_above_the_config_is_a_note_not_a_warning():
    # config.json 262144, card 1M (issue 14): the override is set and explained, not doubted.
    hybrid = Checkpoint(config=HYBRID_MAMBA, documented_context=1_048_576)
    result = plan(hybrid, GOLDEN_1M)
    assert result.deployment_env_vars == {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "lit:1"}
    assert not [w for w in result.warnings if "max_position_embeddings" in w]
    assert any("the model card documents 1048576" in n for n in result.notes)
    assert result.context["tokens"] == 1_048_576
    assert result.context["source"] == "model card (--context)"
    assert result.mrcr_variant["config"] == "benchmarks/mrcr/config_n3_1m.yaml"
    assert result.mrcr_variant["max_model_len"] == 1_100_000
    assert result.mrcr_variant["needs_long_override"] is True


def test_without_documented_context_the_override_asks_for_the_card():
    result = plan(ckpt(HYBRID_MAMBA), GOLDEN_1M)
    assert result.deployment_env_vars == {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "lit:1"}
    (warning,) = [w for w in result.warnings if "max_position_embeddings" in w]
    assert "model card" in warning and "--context" in warning
    assert result.context["source"] == "config.json max_position_embeddings"
    # From config.json alone the largest variant is 128k, served as the model ships.
    assert result.mrcr_variant["config"] == "benchmarks/mrcr/config_n3_128k.yaml"
    assert result.mrcr_variant["max_model_len"] == 262144


def test_length_beyond_the_documented_context_and_answer_room_warns():
    hybrid = Checkpoint(config=HYBRID_MAMBA, documented_context=524_288)
    result = plan(hybrid, GOLDEN_1M)
    assert any("beyond the documented context 524288" in w for w in result.warnings)


def test_cli_context_option_is_reported(run_cli, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(HYBRID_MAMBA))
    args = [
        "size",
        "--model-config",
        cfg,
        "--gpu-mem-gib",
        "180",
        "--gpus-per-node",
        "4",
        "--max-model-len",
        "1100000",
        "--parallelism",
        "256",
        "--num-instances",
        "4",
    ]
    code, out, _ = run_cli(*args, "--context", "1048576")
    assert code == 0
    assert "1048576 tokens documented on the model card (--context)" in out
    assert "MRCR variant:         benchmarks/mrcr/config_n3_1m.yaml" in out
    code, out, _ = run_cli(*args, "--format", "json")
    doc = json.loads(out)
    assert doc["context"]["tokens"] == 262144
    assert doc["mrcr_variant"]["config"].endswith("config_n3_128k.yaml")
    code, _, err = run_cli(*args, "--context", "0")
    assert code == 2 and "--context" in err


def test_smallest_tp_that_holds_the_weights():
    # 140 GiB of weights on 80 GiB GPUs at 0.9: 72 GiB usable minus 4 GiB overhead.
    # TP1: -72 GiB, TP2: -2 GiB (no room), TP4: 72 - 35 - 4 = 33 GiB -> TP4, DP2.
    req = SizeRequest(
        gpu_mem_gib=80,
        gpus_per_node=8,
        max_model_len=131072,
        parallelism=512,
        weights_gib=140,
    )
    result = plan(ckpt(GQA), req)
    assert result.tensor_parallel_size == 4
    assert result.data_parallel_size == 2
    assert result.max_num_seqs == 256
    per_seq = 131072 * 131072 / 4
    assert result.kv_pool_bytes_per_gpu == pytest.approx(33 * GIB)
    assert result.seqs_per_replica_at_max_len == int(33 * GIB // per_seq)
    assert result.fits and result.preempts_at_max_len


def test_weights_from_safetensors_index_are_exact():
    index = {"metadata": {"total_size": 16_060_522_496}, "weight_map": {}}
    req = SizeRequest(gpu_mem_gib=80, gpus_per_node=8, max_model_len=8192, parallelism=8)
    result = plan(ckpt(GQA, index=index), req)
    assert result.weights_exact and result.weights_bytes == 16_060_522_496


def test_weight_estimate_is_close_for_llama3_8b():
    # Llama-3-8B has 8.03e9 parameters (about 16.06e9 bytes in bf16).
    req = SizeRequest(gpu_mem_gib=80, gpus_per_node=8, max_model_len=8192, parallelism=8)
    result = plan(ckpt(GQA), req)
    assert not result.weights_exact
    assert result.weights_bytes == pytest.approx(16.06e9, rel=0.02)


def test_does_not_fit_exits_1(run_cli, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(DENSE_MHA))
    code, out, _ = run_cli(
        "size",
        "--model-config",
        cfg,
        "--gpu-mem-gib",
        "16",
        "--gpus-per-node",
        "1",
        "--max-model-len",
        "1000000",
        "--parallelism",
        "8",
        "--format",
        "json",
    )
    assert code == 1
    assert json.loads(out)["fits"] is False


def test_cli_json_has_the_documented_keys(run_cli, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(MLA))
    quant = tmp_path / "hf_quant_config.json"
    quant.write_text(json.dumps({"quantization": {"quant_algo": "NVFP4"}}))
    code, out, err = run_cli(
        "size",
        "--model-config",
        cfg,
        "--quant-config",
        quant,
        "--gpu-mem-gib",
        "180",
        "--gpus-per-node",
        "8",
        "--max-model-len",
        "131072",
        "--parallelism",
        "256",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    for key in (
        "kv_bytes_per_token",
        "weights_bytes",
        "tensor_parallel_size",
        "data_parallel_size",
        "replicas",
        "max_num_seqs",
        "seqs_per_replica_at_max_len",
        "fits",
        "flags",
        "warnings",
    ):
        assert key in doc
    assert "--enable-expert-parallel" in doc["flags"]
    assert doc["kv_bytes_per_token"] == 70272


def test_cli_text_explains_each_number(run_cli, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(GQA))
    code, out, _ = run_cli(
        "size",
        "--model-config",
        cfg,
        "--gpu-mem-gib",
        "80",
        "--gpus-per-node",
        "8",
        "--max-model-len",
        "131072",
        "--parallelism",
        "256",
    )
    assert code == 0
    assert "ceil(256 / (1 x 8))" in out
    assert "--max-num-seqs 32" in out


@pytest.mark.parametrize(
    "config, needle",
    [
        ({"num_attention_heads": 8, "hidden_size": 512}, "num_hidden_layers"),
        ({**GQA, "num_attention_heads": 0}, "num_attention_heads"),
        ({**GQA, "num_hidden_layers": "32"}, "num_hidden_layers"),
    ],
)
def test_bad_config_is_one_line_exit_2(run_cli, tmp_path, config, needle):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config))
    code, out, err = run_cli(
        "size",
        "--model-config",
        cfg,
        "--gpu-mem-gib",
        "80",
        "--gpus-per-node",
        "8",
        "--max-model-len",
        "8192",
        "--parallelism",
        "8",
    )
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert str(cfg) in err and needle in err


def test_malformed_json_names_the_line(run_cli, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text('{\n  "num_hidden_layers": 32,\n  oops\n}')
    code, _, err = run_cli(
        "size",
        "--model-config",
        cfg,
        "--gpu-mem-gib",
        "80",
        "--gpus-per-node",
        "8",
        "--max-model-len",
        "8192",
        "--parallelism",
        "8",
    )
    assert code == 2
    assert f"{cfg}:3:" in err


def test_missing_source_is_a_usage_error(run_cli):
    code, _, err = run_cli(
        "size",
        "--gpu-mem-gib",
        "80",
        "--gpus-per-node",
        "8",
        "--max-model-len",
        "8192",
        "--parallelism",
        "8",
    )
    assert code == 2 and "--model-config" in err


@settings(max_examples=examples(60), deadline=None)
@given(
    mem=st.floats(min_value=24, max_value=200),
    extra=st.floats(min_value=0, max_value=100),
    length=st.integers(min_value=1024, max_value=2_000_000),
    parallelism=st.integers(min_value=1, max_value=4096),
    instances=st.integers(min_value=1, max_value=8),
    gpus=st.sampled_from([1, 2, 4, 8]),
)
def test_properties(mem, extra, length, parallelism, instances, gpus):
    base = dict(
        gpus_per_node=gpus,
        max_model_len=length,
        parallelism=parallelism,
        num_instances=instances,
        tensor_parallel_size=1,
        weights_gib=10,
    )
    small = plan(ckpt(GQA), SizeRequest(gpu_mem_gib=mem, **base))
    big = plan(ckpt(GQA), SizeRequest(gpu_mem_gib=mem + extra, **base))
    # more GPU memory never fits fewer sequences
    assert big.seqs_per_replica_at_max_len >= small.seqs_per_replica_at_max_len
    # the per-replica ceiling times the replicas covers the client's concurrency
    assert small.max_num_seqs * small.replicas >= parallelism
    assert max_num_seqs(parallelism, small.data_parallel_size, instances) == math.ceil(
        parallelism / (small.data_parallel_size * instances)
    )
    fp8 = plan(ckpt(GQA), SizeRequest(gpu_mem_gib=mem, kv_cache_dtype="fp8", **base))
    assert fp8.kv_bytes_per_token * 2 == small.kv_bytes_per_token


def test_preemption_advice_offers_fp8_only_where_the_cache_is_not_fp8():
    # The same shape as above (TP4 holds 33 GiB of cache, too little for 256 sequences of
    # 128k): at bf16 the advice names an fp8 cache; with an fp8 cache already it must not.
    base = dict(gpu_mem_gib=80, gpus_per_node=8, max_model_len=131072, parallelism=512)
    bf16 = plan(ckpt(GQA), SizeRequest(weights_gib=140, kv_cache_dtype="bf16", **base))
    fp8 = plan(ckpt(GQA), SizeRequest(weights_gib=140, kv_cache_dtype="fp8", **base))
    assert bf16.preempts_at_max_len and fp8.preempts_at_max_len
    assert any("fp8 KV cache if" in w for w in bf16.warnings)
    assert not any("use an fp8 KV cache" in w for w in fp8.warnings)
