# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL3xx: the deployment and its `vllm serve` command (dead keys, long context, Ray,
traced secrets, folded and shell-quoted commands, the vLLM argument table)."""

from .common import make

# The launcher's Ray head script and our generic base's folded command (NEL311 swaps one
# for the other).
RAY_SCRIPT = """  command: |
    #!/bin/bash
    set -euo pipefail
    # the pattern of the launcher 0.2.6 deployment/vllm_ray.yaml command
    if [ "$PROC_ID" -eq 0 ]; then
        ray start --head --port=$RAY_PORT --node-manager-port=$NODE_PORT
        # --not-a-vllm-flag in a comment is ignored
        ${deployment.base_command} \\
          --distributed-executor-backend ray{extra}
    else
        ray start --block --address=$MASTER_IP:$RAY_PORT
    fi
  base_command: >-
    vllm serve /checkpoint
    --served-model-name ${deployment.served_model_name}
    --port=${deployment.port}
    --tensor-parallel-size=1
    --data-parallel-size=8
    --max-model-len 131072
    --max-num-seqs 32
"""
GENERIC_COMMAND = (
    "  command: >-\n    vllm serve /checkpoint\n    --served-model-name ${deployment.served_model_name}\n"
    "    --host 0.0.0.0\n    --port ${deployment.port}\n    --tensor-parallel-size 1\n"
    "    --data-parallel-size 8\n    --max-model-len 131072\n    --max-num-seqs 32\n"
)


def generate():
    # NEL301
    make(
        "NEL301",
        "fail",
        "gpu_util_unused",
        "generic",
        [
            (
                "  served_model_name: model-fp8\n",
                "  served_model_name: model-fp8\n  gpu_memory_utilization: 0.9\n",
            )
        ],
        "gpu_memory_utilization set, command never uses it",
    )
    make(
        "NEL301",
        "fail",
        "tp_unused",
        "generic",
        [
            (
                "  served_model_name: model-fp8\n",
                "  served_model_name: model-fp8\n  tensor_parallel_size: 8\n",
            )
        ],
        "tensor_parallel_size set, command never uses it",
    )
    make(
        "NEL301",
        "pass",
        "referenced",
        "mrcr",
        [],
        "gpu_memory_utilization referenced by the command",
    )

    # NEL302
    make(
        "NEL302",
        "fail",
        "no_override",
        "mrcr",
        [("    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n", "")],
        "1100000 without the override",
    )
    make("NEL302", "pass", "override_set", "mrcr", [], "override set")

    # NEL303
    make(
        "NEL303",
        "fail",
        "bare_envelope",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n    --enable-chunked-prefill\n    --max-num-batched-tokens 131072\n",
                "",
            ),
            ("  gpu_memory_utilization: 0.95", "  gpu_memory_utilization: 0.85"),
        ],
        "1M variant without the envelope flags",
    )
    make("NEL303", "pass", "full_envelope", "mrcr", [], "the full envelope")

    # NEL304
    make(
        "NEL304",
        "fail",
        "ray_pin",
        "mrcr",
        [
            (
                "                  cd /opt/Gym\n",
                "                  cd /opt/Gym\n                  echo 'ray==2.49.2' >> requirements.txt\n",
            )
        ],
        "ray==2.49.2 in the gym command",
    )
    make(
        "NEL304",
        "pass",
        "ray_from_image",
        "mrcr",
        [
            (
                "                  cd /opt/Gym\n",
                "                  cd /opt/Gym\n                  ver=$(python -c 'import ray; print(ray.__version__)')\n                  echo \"ray[default]==$ver\" >> requirements.txt\n",
            )
        ],
        "pin derived from the image",
    )

    # NEL305
    make(
        "NEL305",
        "fail",
        "traced_token",
        "mrcr",
        [
            (
                "                  set +x\n                  ng_prepare_benchmark",
                "                  ng_prepare_benchmark",
            )
        ],
        "set -x still on when data_prep_params (+hf_token=$HF_TOKEN) expands",
    )
    make(
        "NEL305",
        "fail",
        "direct_token",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                "    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    set -ex\n    huggingface-cli login --token $HF_TOKEN\n",
            )
        ],
        "$HF_TOKEN under set -x",
    )
    make("NEL305", "pass", "untraced", "mrcr", [], "set +x around the secret line")

    # NEL306
    make(
        "NEL306",
        "fail",
        "hash_in_folded_command",
        "mrcr",
        [
            (
                "    --enable-prefix-caching\n",
                "    --enable-prefix-caching  # keep KV between turns\n",
            )
        ],
        "# inside the folded deployment.command",
    )
    make(
        "NEL306",
        "pass",
        "comment_above_command",
        "mrcr",
        [("  command: >-\n", "  # prefix caching keeps KV between turns\n  command: >-\n")],
        "comment above the folded command",
    )

    # NEL307
    make(
        "NEL307",
        "fail",
        "checkpoint_newline",
        "mrcr",
        [
            (
                "  checkpoint_path: /lustre/ckpt/model-bf16\n",
                '  checkpoint_path: "/lustre/ckpt/model-bf16\\ntouch /tmp/PWNED"\n',
            )
        ],
        "a newline in checkpoint_path ends the srun line (--container-mounts)",
    )
    make(
        "NEL307",
        "fail",
        "served_name_semicolon",
        "mrcr",
        [("  served_model_name: model-bf16\n", '  served_model_name: "model-bf16; id"\n')],
        "served_model_name reaches deployment.command through ${deployment.served_model_name}",
    )
    make(
        "NEL307",
        "fail",
        "mount_pipe",
        "mrcr",
        [("      /lustre/hf-cache: /hf-cache\n", "      /lustre/hf-cache|id: /hf-cache\n")],
        "a pipe in a mount's host path (--container-mounts)",
    )
    make(
        "NEL307",
        "fail",
        "account_newline",
        "mrcr",
        [("  account: eval-team\n", '  account: "eval-team\\nid"\n')],
        "a newline in the account ends the #SBATCH line",
    )
    make(
        "NEL307",
        "pass",
        "shell_in_pre_cmd",
        "mrcr",
        [
            (
                "    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n",
                "    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n"
                "  pre_cmd: |\n"
                '    set -e; pip list | grep -i vllm > /tmp/vllm.txt && echo "$(date)" >> /tmp/vllm.txt\n',
            )
        ],
        "shell in pre_cmd is the user's own; the values it and the command reference are clean",
    )

    # NEL310-NEL314: `vllm serve` against the argument table of the image's vLLM version
    # (tools/evalkit/data/vllm-<version>-serve.json, generated from the vLLM wheels).
    make("NEL310", "fail", "version_without_table", "generic",
         [("vllm/vllm-openai:v0.26.0", "vllm/vllm-openai:v0.27.1")],
         "vLLM 0.27.1 has no table; 0.26.0 stands in")  # fmt: skip
    make("NEL310", "pass", "pinned_known_version", "generic", [], "vLLM 0.26.0 has a table")
    make("NEL311", "fail", "misspelled_flag", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-sqs 32\n")], "--max-num-sqs")  # fmt: skip
    make("NEL311", "fail", "ambiguous_abbreviation", "generic",
         [("    --max-num-seqs 32\n", "    --max-num 32\n")], "--max-num matches four flags")  # fmt: skip
    make("NEL311", "fail", "flag_from_interpolation", "generic",
         [("  env_vars:\n    HF_TOKEN", "  extra_args: --enable-prefix-cachng\n  env_vars:\n    HF_TOKEN"),
          ("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    ${deployment.extra_args}\n")],
         "an unknown flag that reaches the command through ${deployment.extra_args}")  # fmt: skip
    make("NEL311", "fail", "literal_block_script", "generic",
         [(GENERIC_COMMAND, RAY_SCRIPT.replace("{extra}", " --enable-expert-paralel"))],
         "a Ray head script (literal block) whose vllm call has a misspelled flag")  # fmt: skip
    make("NEL311", "pass", "launcher_ray_script", "generic",
         [(GENERIC_COMMAND, RAY_SCRIPT.replace("{extra}", ""))],
         "the launcher's Ray script pattern: ray flags, shell comments, --flag=value")  # fmt: skip
    make("NEL311", "pass", "vllm_spellings", "generic",
         [("    --max-num-seqs 32\n",
           "    --max_num_seqs 32\n    -tp 1\n    --no-enable-prefix-caching\n"
           "    --compilation-config.mode 3\n    -O3\n    --hf-overrides '{\"max_position_embeddings\": 131072}'\n")],
         "underscores, a short alias, a --no- form, a dotted JSON key and -O3")  # fmt: skip
    make("NEL312", "fail", "kv_cache_dtype_choice", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --kv-cache-dtype fp8_e4m3fn\n")],
         "fp8_e4m3fn is not a vLLM KV-cache dtype")  # fmt: skip
    make("NEL312", "fail", "missing_value", "generic",
         [("    --max-model-len 131072\n    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --max-model-len\n")],
         "--max-model-len at the end of the command")  # fmt: skip
    make("NEL312", "fail", "value_on_switch", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --enforce-eager=true\n")],
         "--enforce-eager takes no value")  # fmt: skip
    make("NEL312", "fail", "quantization_value", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --quantization nvfp4\n")],
         "nvfp4 is a KV-cache dtype, not a quantization method")  # fmt: skip
    make("NEL312", "pass", "valid_values", "generic",
         [("    --max-num-seqs 32\n",
           "    --max-num-seqs 32\n    --kv-cache-dtype fp8\n    --quantization modelopt_fp4\n    --dtype auto\n")],
         "values the version accepts")  # fmt: skip
    make("NEL313", "fail", "nano_v3_reasoning_parser", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --reasoning-parser nano_v3\n")],
         "the model card's plugin name without its plugin file")  # fmt: skip
    make("NEL313", "fail", "unknown_tool_parser", "generic",
         [("    --max-num-seqs 32\n",
           "    --max-num-seqs 32\n    --enable-auto-tool-choice\n    --tool-call-parser qwen3coder\n")],
         "qwen3coder is not a tool-call parser (qwen3_coder is)")  # fmt: skip
    make("NEL313", "pass", "nemotron_v3_built_in", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --reasoning-parser nemotron_v3\n")],
         "the built-in Nemotron 3 reasoning parser")  # fmt: skip
    make("NEL313", "pass", "plugin_parser", "generic",
         [("    --max-num-seqs 32\n",
           "    --max-num-seqs 32\n    --reasoning-parser-plugin /plugins/nano_v3_reasoning_parser.py\n"
           "    --reasoning-parser nano_v3\n")],
         "the plugin form: info only")  # fmt: skip
    make("NEL313", "pass", "parser_blank_in_template", "generic",
         [("  env_vars:\n    HF_TOKEN", "  reasoning_parser: ???\n  env_vars:\n    HF_TOKEN"),
          ("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --reasoning-parser ${deployment.reasoning_parser}\n")],
         "a ??? parser under --template is left to NEL002", args={"template": True})  # fmt: skip
    make("NEL314", "fail", "same_flag_two_values", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --max-num-seqs 64\n")],
         "--max-num-seqs twice")  # fmt: skip
    make("NEL314", "fail", "alias_and_long_form", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    -tp 2\n")],
         "--tensor-parallel-size 1 and -tp 2")  # fmt: skip
    make("NEL314", "pass", "same_value_twice", "generic",
         [("    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --max-num-seqs 32\n")],
         "a repeat with the same value changes nothing")  # fmt: skip
