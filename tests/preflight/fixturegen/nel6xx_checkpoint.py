# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL6xx: the config against a checkpoint (the checkpoint directories under
_checkpoints/ are written here too)."""

from .common import MOE_NOKV, MOE_OK, NO_OVERRIDE, V128, C, ckpt, make


def generate():
    # checkpoints
    ckpt(
        "dense_128k",
        {
            "architectures": ["LlamaForCausalLM"],
            "max_position_embeddings": 131072,
            "num_attention_heads": 64,
            "num_key_value_heads": 8,
            "torch_dtype": "bfloat16",
        },
    )
    ckpt(
        "moe_1m_fp8kv",
        {
            "architectures": ["NemotronHForCausalLM"],
            "max_position_embeddings": 1048576,
            "num_attention_heads": 32,
            "num_key_value_heads": 2,
            "num_experts": 128,
            "auto_map": {"AutoConfig": "configuration_x.XConfig"},
            "torch_dtype": "bfloat16",
        },
        {
            "producer": {"name": "modelopt"},
            "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8"},
        },
    )
    ckpt(
        "moe_1m_nokv",
        {
            "architectures": ["NemotronHForCausalLM"],
            "max_position_embeddings": 1048576,
            "num_attention_heads": 32,
            "num_experts": 128,
            "auto_map": {"AutoConfig": "configuration_x.XConfig"},
        },
    )
    # Nemotron 3 Nano shape (NemotronHForCausalLM, 30B-A3B): layer pattern, head and Mamba-2
    # sizes as public code quotes that model's config.json (not checked against the hub here);
    # max_position_embeddings 262144 is the config's runtime default, while the model card
    # documents 1M tokens (issue 14). The golden MRCR run's family.
    ckpt(
        "hybrid_256k_card_1m",
        {
            "architectures": ["NemotronHForCausalLM"],
            "model_type": "nemotron_h",
            "auto_map": {"AutoConfig": "configuration_nemotron_h.NemotronHConfig"},
            "hidden_size": 2688,
            "num_hidden_layers": 52,
            "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
            "num_attention_heads": 32,
            "num_key_value_heads": 2,
            "head_dim": 128,
            "mamba_num_heads": 64,
            "mamba_head_dim": 64,
            "ssm_state_size": 128,
            "n_groups": 8,
            "conv_kernel": 4,
            "n_routed_experts": 128,
            "num_experts_per_tok": 6,
            "moe_intermediate_size": 1856,
            "moe_shared_expert_intermediate_size": 3712,
            "vocab_size": 131072,
            "max_position_embeddings": 262144,
            "torch_dtype": "bfloat16",
        },
    )

    # NEL601-NEL606: each config read against one of those checkpoints
    make(
        "NEL601",
        "fail",
        "fp8_uncalibrated",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n",
                "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n    --kv-cache-dtype fp8\n",
            )
        ],
        "fp8 KV on a checkpoint without KV calibration",
        args=C("moe_1m_nokv"),
    )
    make(
        "NEL601",
        "fail",
        "calibrated_unused",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n",
                "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n",
            )
        ],
        "calibrated FP8 KV not used (warning)",
        args=C("moe_1m_fp8kv"),
    )
    make(
        "NEL601",
        "pass",
        "fp8_calibrated",
        "mrcr",
        MOE_OK,
        "fp8 KV on an FP8-KV checkpoint",
        args=C("moe_1m_fp8kv"),
    )

    make(
        "NEL602",
        "fail",
        "above_trained",
        "generic",
        [("    --max-model-len 131072", "    --max-model-len 262144")],
        "262144 > 131072 without override",
        args=C("dense_128k"),
    )
    make("NEL602", "pass", "at_trained", "generic", [], "131072 = trained", args=C("dense_128k"))
    make(
        "NEL602",
        "fail",
        "card_1m_no_override",
        "mrcr",
        MOE_NOKV + NO_OVERRIDE,
        "golden 1M envelope on a 262144-config, 1M-card hybrid, without the long-length override",
        args=C("hybrid_256k_card_1m", 1048576),
    )
    make(
        "NEL602",
        "pass",
        "card_1m_override",
        "mrcr",
        MOE_NOKV,
        "golden 1M envelope on a 262144-config, 1M-card hybrid, with the override",
        args=C("hybrid_256k_card_1m", 1048576),
    )

    make(
        "NEL603",
        "fail",
        "1m_on_128k_model",
        "mrcr",
        [],
        "1M variant on a 128k model whose card documents 128k",
        args=C("dense_128k", 131072),
    )
    make(
        "NEL603",
        "fail",
        "1m_override_no_context",
        "mrcr",
        MOE_NOKV,
        "golden 1M envelope on a 262144-config hybrid, override set, no documented context (warning)",
        args=C("hybrid_256k_card_1m"),
    )
    make(
        "NEL603",
        "fail",
        "1m_no_override_no_context",
        "mrcr",
        MOE_NOKV + NO_OVERRIDE,
        "1M variant above max_position_embeddings 262144, no override, no documented context",
        args=C("hybrid_256k_card_1m"),
    )
    make(
        "NEL603",
        "fail",
        "128k_on_card_1m",
        "mrcr",
        MOE_NOKV
        + NO_OVERRIDE
        + [
            ("    --max-model-len 1100000", "    --max-model-len 262144"),
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  +hf_token',
                'benchmarks/mrcr/config_n3_128k.yaml]"\n                  +hf_token',
            ),
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
                'benchmarks/mrcr/config_n3_128k.yaml]"\n                  ++split',
            ),
        ],
        "128k variant for a hybrid whose card documents 1M (warning: a larger variant fits)",
        args=C("hybrid_256k_card_1m", 1048576),
    )
    make(
        "NEL603",
        "pass",
        "golden_card_1m",
        "mrcr",
        MOE_NOKV,
        "golden: config 262144, card 1M (--context 1048576), 1100000 with the override",
        args=C("hybrid_256k_card_1m", 1048576),
    )
    make(
        "NEL603",
        "fail",
        "128k_on_1m_model",
        "mrcr",
        MOE_OK
        + [
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  +hf_token',
                'benchmarks/mrcr/config_n3_128k.yaml]"\n                  +hf_token',
            ),
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
                'benchmarks/mrcr/config_n3_128k.yaml]"\n                  ++split',
            ),
        ],
        "128k variant when 1M fits (warning)",
        args=C("moe_1m_fp8kv"),
    )
    make(
        "NEL603",
        "pass",
        "1m_on_1m_model",
        "mrcr",
        MOE_OK,
        "1M variant on a 1M model",
        args=C("moe_1m_fp8kv"),
    )
    make(
        "NEL604",
        "fail",
        "stretched",
        "mrcr",
        V128,
        "128k variant at 1100000 with the long override",
        args=C("dense_128k"),
    )
    make(
        "NEL604",
        "fail",
        "no_answer_room",
        "mrcr",
        V128
        + [
            ("    --max-model-len 1100000", "    --max-model-len 131072"),
            ("    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n", ""),
        ],
        "128k variant at a 131072 trained context: no room above the cap",
        args=C("dense_128k"),
    )
    make(
        "NEL604",
        "pass",
        "answer_floor",
        "mrcr",
        V128 + [("    --max-model-len 1100000", "    --max-model-len 182496")],
        "128k variant on a 131072-token checkpoint at cap + answer room, with the override",
        args=C("dense_128k"),
    )

    make(
        "NEL605",
        "fail",
        "moe_without_ep",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n",
                "    --enable-prefix-caching\n    --trust-remote-code\n    --kv-cache-dtype fp8\n",
            )
        ],
        "MoE without expert parallel",
        args=C("moe_1m_fp8kv"),
    )
    make(
        "NEL605",
        "fail",
        "dense_with_ep",
        "generic",
        [("    --max-num-seqs 32", "    --max-num-seqs 32\n    --enable-expert-parallel")],
        "dense with expert parallel (warning)",
        args=C("dense_128k"),
    )
    make(
        "NEL605",
        "pass",
        "moe_with_ep",
        "mrcr",
        MOE_OK,
        "MoE with expert parallel",
        args=C("moe_1m_fp8kv"),
    )

    make(
        "NEL606",
        "fail",
        "auto_map_no_flag",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n",
                "    --enable-prefix-caching\n    --enable-expert-parallel\n    --kv-cache-dtype fp8\n",
            )
        ],
        "auto_map without --trust-remote-code",
        args=C("moe_1m_fp8kv"),
    )
    make(
        "NEL606",
        "pass",
        "auto_map_flag",
        "mrcr",
        MOE_OK,
        "auto_map with --trust-remote-code",
        args=C("moe_1m_fp8kv"),
    )
