# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL4xx: NeMo Gym tasks and MRCR (standalone Gym, variants, output cap, image, pin,
caching, context and answer room)."""

from .common import ROOT, C, make


def generate():
    # NEL401
    make("NEL401", "fail", "gym_plus_gpqa", "mrcr", [], "nemo_gym plus another task", append="")
    # append a task under tasks: insert before export
    p = ROOT / "NEL401" / "fail" / "gym_plus_gpqa.yaml"
    t = p.read_text().replace(
        "\nexport:\n",
        "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n\nexport:\n",
        1,
    )
    p.write_text(t)
    make("NEL401", "pass", "gym_alone", "mrcr", [], "one gym task")

    # NEL402
    make(
        "NEL402",
        "fail",
        "hash_in_folded",
        "mrcr",
        [
            (
                "                  ++split=benchmark\n",
                "                  ++split=benchmark\n                  # canary ++limit=10\n",
            )
        ],
        "# inside collect_rollout_params",
    )
    make(
        "NEL402",
        "pass",
        "comment_above",
        "mrcr",
        [
            (
                "                collect_rollout_params: >-\n",
                "                # canary: append ++limit=10 below\n                collect_rollout_params: >-\n",
            )
        ],
        "comment above the key",
    )

    # NEL403
    make(
        "NEL403",
        "fail",
        "mismatch",
        "mrcr",
        [
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
                'benchmarks/mrcr/config_n3_128k.yaml]"\n                  ++split',
            )
        ],
        "1m vs 128k",
    )
    make(
        "NEL403",
        "fail",
        "unknown",
        "mrcr",
        [
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  +hf_token',
                'benchmarks/mrcr/config_n3_2m.yaml]"\n                  +hf_token',
            ),
            (
                'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
                'benchmarks/mrcr/config_n3_2m.yaml]"\n                  ++split',
            ),
        ],
        "unknown variant",
    )
    make("NEL403", "pass", "same", "mrcr", [], "same variant")

    # NEL404
    make(
        "NEL404",
        "fail",
        "max_new_tokens",
        "mrcr",
        [("        max_new_tokens: null", "        max_new_tokens: 65536")],
        "max_new_tokens set",
    )
    make(
        "NEL404",
        "fail",
        "max_output_tokens",
        "mrcr",
        [
            (
                "++responses_create_params.max_output_tokens=null",
                "++responses_create_params.max_output_tokens=32768",
            )
        ],
        "max_output_tokens set",
    )
    make("NEL404", "pass", "uncapped", "mrcr", [], "both null")

    # NEL405
    make(
        "NEL405",
        "fail",
        "public_image",
        "mrcr",
        [
            (
                "registry.example.org/gym/nemo-gym-git:26.05",
                "nvcr.io/nvidia/eval-factory/nemo-gym:26.05",
            )
        ],
        "public nemo-gym image",
    )
    make("NEL405", "pass", "git_backed", "mrcr", [], "a git-backed image")

    # NEL406
    make(
        "NEL406",
        "fail",
        "short_sha",
        "mrcr",
        [("commit: a431501aa294f3237d472aaf58dd1e5026156ea8", "commit: a431501")],
        "short SHA",
    )
    make(
        "NEL406",
        "fail",
        "branch",
        "mrcr",
        [("commit: a431501aa294f3237d472aaf58dd1e5026156ea8", "commit: main")],
        "a branch name",
    )
    make("NEL406", "pass", "full_sha", "mrcr", [], "full 40-hex SHA")

    # NEL407
    make(
        "NEL407",
        "fail",
        "caching_default",
        "mrcr",
        [("          use_caching: false\n", "")],
        "use_caching unset (default true)",
    )
    make(
        "NEL407",
        "fail",
        "caching_true",
        "mrcr",
        [("          use_caching: false", "          use_caching: true")],
        "use_caching: true",
    )
    make("NEL407", "pass", "caching_off", "mrcr", [], "use_caching: false")

    # NEL408
    make(
        "NEL408",
        "fail",
        "below_cap",
        "mrcr",
        [("    --max-model-len 1100000", "    --max-model-len 524288")],
        "524288 < 1048576",
    )
    make(
        "NEL408",
        "fail",
        "missing_flag",
        "mrcr",
        [("    --max-model-len 1100000\n", "")],
        "no --max-model-len for the 1M variant",
    )
    make("NEL408", "pass", "above_cap", "mrcr", [], "1100000")

    # NEL409
    make(
        "NEL409",
        "fail",
        "no_room",
        "mrcr",
        [("    --max-model-len 1100000", "    --max-model-len 1048576")],
        "1048576: no answer room",
    )
    make("NEL409", "pass", "room", "mrcr", [], "1100000")

    # NEL410
    make(
        "NEL410",
        "fail",
        "bootstrap_dropped",
        "mrcr",
        [
            (
                "                  git checkout --quiet {{config.params.extra.nemo_gym.install_on_the_fly.commit}}\n",
                "",
            )
        ],
        "a custom command that never reads the pin",
    )
    make("NEL410", "pass", "pin_checked_out", "mrcr", [], "the command checks the pin out")

    # NEL411
    gpqa_task = "    - name: simple_evals.gpqa_diamond\n\nexport:\n"
    install = "uv pip install --no-cache --python /opt/Gym/.venv/bin/python tiktoken"
    make(
        "NEL411",
        "fail",
        "gym_install_reaches_gpqa",
        "mrcr",
        [
            (
                "  nemo_evaluator_config:\n    config:\n",
                f"  pre_cmd: {install}\n  nemo_evaluator_config:\n    config:\n",
            ),
            ("\nexport:\n", gpqa_task),
        ],
        "evaluation.pre_cmd installs into the Gym venv; a simple-evals task inherits it",
    )
    make(
        "NEL411",
        "pass",
        "install_on_the_gym_task",
        "mrcr",
        [
            (
                "      container: registry.example.org/gym/nemo-gym-git:26.05\n",
                f"      container: registry.example.org/gym/nemo-gym-git:26.05\n      pre_cmd: {install}\n",
            ),
            ("\nexport:\n", gpqa_task),
        ],
        "the install is the Gym task's own pre_cmd",
    )
    make(
        "NEL411",
        "pass",
        "gym_alone",
        "mrcr",
        [
            (
                "  nemo_evaluator_config:\n    config:\n",
                f"  pre_cmd: {install}\n  nemo_evaluator_config:\n    config:\n",
            )
        ],
        "one task: the evaluation's pre_cmd is the Gym task's",
    )
    make(
        "NEL411",
        "fail",
        "gym_install_without_gym_task",
        "generic",
        [
            (
                "  nemo_evaluator_config:\n    config:\n",
                f"  pre_cmd: {install}\n  nemo_evaluator_config:\n    config:\n",
            )
        ],
        "a Gym install step in a config with no Gym task",
    )

    # NEL412
    make(
        "NEL412",
        "fail",
        "no_tool_calling",
        "tau3",
        [
            ("    --enable-auto-tool-choice\n", ""),
            ("    --tool-call-parser ${deployment.tool_call_parser}\n", ""),
        ],
        "neither --enable-auto-tool-choice nor --tool-call-parser",
    )
    make(
        "NEL412",
        "fail",
        "parser_without_auto_choice",
        "tau3",
        [("    --enable-auto-tool-choice\n", "")],
        "--tool-call-parser alone",
    )
    make("NEL412", "pass", "tool_calling_on", "tau3", [], "both flags")

    # NEL413
    make(
        "NEL413",
        "fail",
        "below_card_context",
        "tau3",
        [],
        "262144 served, the card documents 1048576",
        args=C("hybrid_256k_card_1m", context=1048576),
    )
    make(
        "NEL413",
        "fail",
        "below_config_context",
        "tau3",
        [("  max_model_len: 262144\n", "  max_model_len: 65536\n")],
        "65536 served, config.json says 262144",
        args=C("hybrid_256k_card_1m"),
    )
    make(
        "NEL413",
        "pass",
        "full_context",
        "tau3",
        [],
        "262144 served, config.json says 262144",
        args=C("hybrid_256k_card_1m"),
    )

    # NEL414
    make(
        "NEL414",
        "fail",
        "key_never_set",
        "tau3",
        [
            (
                '              ++gpt-5_4-mini-2026-03-17.responses_api_models.openai_model.openai_api_key="$INFERENCE_API_KEY"\n',
                "",
            )
        ],
        "no openai_api_key override",
    )
    make(
        "NEL414",
        "fail",
        "endpoint_unmapped",
        "tau3",
        [("    TAU3_USER_BASE_URL: host:TAU3_USER_BASE_URL\n", "")],
        "$TAU3_USER_BASE_URL read but never mapped",
    )
    make(
        "NEL414",
        "fail",
        "model_empty",
        "tau3",
        [("    TAU3_USER_MODEL: host:TAU3_USER_MODEL\n", "    TAU3_USER_MODEL: 'lit:'\n")],
        "TAU3_USER_MODEL mapped to an empty literal",
    )
    make("NEL414", "pass", "wired", "tau3", [], "all three mapped from the shell")
