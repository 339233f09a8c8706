# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL1xx: environment variables (prefixes, the invocation id, literal secrets, unset vars)."""

from .common import make


def generate():
    # NEL101 prefix
    make(
        "NEL101",
        "fail",
        "bare_name",
        "generic",
        [("    HF_TOKEN: host:HF_TOKEN", "    HF_TOKEN: HF_TOKEN")],
        "HF_TOKEN: HF_TOKEN",
    )
    make(
        "NEL101",
        "fail",
        "task_env",
        "generic",
        [
            (
                "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n",
                "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n      env_vars:\n        LOG_LEVEL: WARNING\n",
            )
        ],
        "task env without prefix",
    )
    make("NEL101", "pass", "all_prefixed", "mrcr", [], "host:, lit: and runtime: values")

    # NEL102
    make(
        "NEL102",
        "fail",
        "top_level_runtime",
        "generic",
        [
            (
                "evaluation:\n",
                "env_vars:\n  NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID\n\nevaluation:\n",
            ),
            ("  walltime:", "  auto_export:\n    destinations: [local]\n  walltime:"),
        ],
        "runtime:NEL_INVOCATION_ID at top level, with SLURM auto-export",
    )
    make(
        "NEL102", "pass", "evaluation_runtime", "mrcr", [], "the mapping under evaluation.env_vars"
    )

    # NEL103
    make(
        "NEL103",
        "fail",
        "hf_token_literal",
        "generic",
        [("    HF_TOKEN: host:HF_TOKEN", "    HF_TOKEN: lit:hf_abcdefghijklmnop")],
        "HF_TOKEN as lit:",
    )
    make(
        "NEL103",
        "fail",
        "api_key_literal",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                "    DUMMY_API_KEY: lit:dummy\n    INFERENCE_API_KEY: lit:sk-live-123\n",
            )
        ],
        "INFERENCE_API_KEY as lit:",
    )
    make("NEL103", "pass", "dummy_key_literal", "generic", [], "DUMMY_API_KEY: lit:dummy is fine")

    # NEL104
    make(
        "NEL104",
        "fail",
        "oc_env_unset",
        "generic",
        [("experiment_name: gpqa-model-fp8", "experiment_name: ${oc.env:EVALKIT_FIXTURE_UNSET}")],
        "${oc.env:VAR} without a default, unset",
    )
    make(
        "NEL104",
        "fail",
        "host_unset",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                "    DUMMY_API_KEY: lit:dummy\n    JUDGE_KEY: host:EVALKIT_FIXTURE_UNSET\n",
            )
        ],
        "host:VAR unset",
    )
    make("NEL104", "pass", "oc_env_default", "generic", [], "${oc.env:VAR,default}")
