# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL5xx: the export block."""

from .common import make


def generate():
    # NEL501
    make(
        "NEL501",
        "fail",
        "stale_temperature",
        "generic",
        [("      temperature: '0.6'", "      temperature: '1.0'")],
        "tag 1.0 vs param 0.6",
    )
    make(
        "NEL501",
        "fail",
        "mrcr_max_new_tokens_tag",
        "mrcr",
        [("      top_p: '0.95'\n", "      top_p: '0.95'\n      max_new_tokens: '65536'\n")],
        "a max_new_tokens tag while the param is null",
    )
    make("NEL501", "pass", "equal", "generic", [], "tags equal params")
    make("NEL501", "pass", "mrcr_no_tag", "mrcr", [], "MRCR: no max_new_tokens tag")

    # NEL502
    make(
        "NEL502",
        "fail",
        "deployment_ref",
        "generic",
        [
            (
                "experiment_name: gpqa-model-fp8",
                "experiment_name: gpqa-${deployment.served_model_name}",
            )
        ],
        "${deployment.served_model_name} in export",
    )
    make("NEL502", "pass", "literal", "generic", [], "literal export values")
