# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL7xx: a baseline/candidate pair; NEL8xx: what the launcher itself renders."""

from .common import V128, make


def generate():
    # pair
    make(
        "NEL701",
        "fail",
        "temperature_differs",
        "generic",
        [
            ("        temperature: 0.6", "        temperature: 1.0"),
            ("      temperature: '0.6'", "      temperature: '1.0'"),
        ],
        "candidate samples at another temperature",
        args={"pair_base": "../../_base/generic.yaml"},
    )
    make(
        "NEL701",
        "fail",
        "variant_differs",
        "mrcr",
        V128,
        "candidate runs another MRCR variant",
        args={"pair_base": "../../_base/mrcr.yaml"},
    )
    make(
        "NEL701",
        "pass",
        "checkpoint_only",
        "generic",
        [
            (
                "checkpoint_path: /lustre/ckpt/model-fp8",
                "checkpoint_path: /lustre/ckpt/model-nvfp4",
            ),
            ("served_model_name: model-fp8", "served_model_name: model-nvfp4"),
        ],
        "only checkpoint keys differ",
        args={"pair_base": "../../_base/generic.yaml"},
    )

    # launcher
    make(
        "NEL801",
        "fail",
        "bad_group",
        "generic",
        [("  - deployment: vllm", "  - deployment: vllmm")],
        "the launcher cannot find deployment/vllmm",
        args={"launcher": True},
    )
    make(
        "NEL801",
        "pass",
        "renders",
        "generic",
        [],
        "the launcher renders the job",
        args={"launcher": True},
    )
    make(
        "NEL802",
        "fail",
        "unbalanced_quote",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                '    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    echo "unterminated\n',
            )
        ],
        "an unbalanced quote in pre_cmd",
        args={"launcher": True},
    )
    make(
        "NEL802",
        "pass",
        "balanced",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                '    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    echo "balanced"\n',
            )
        ],
        "balanced quotes",
        args={"launcher": True},
    )
    make(
        "NEL803",
        "fail",
        "mount_placeholder",
        "generic",
        [
            (
                "    mount_home: false\n",
                "    mount_home: false\n    deployment:\n      <HOST_HF_CACHE>: /hf-cache\n",
            )
        ],
        "<HOST_HF_CACHE> reaches --container-mounts",
        args={"launcher": True},
    )
    make(
        "NEL803",
        "fail",
        "lowercase_placeholder",
        "generic",
        [
            (
                "    mount_home: false\n",
                "    mount_home: false\n    deployment:\n      <your-hf-cache>: /hf-cache\n",
            )
        ],
        "a lower-case <your-hf-cache> reaches --container-mounts",
        args={"launcher": True},
    )
    make(
        "NEL803",
        "pass",
        "shell_redirections",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                "    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    cat <<EOF > /tmp/ready.txt 2>&1\n"
                "    ready\n    EOF\n    wc -l < /tmp/ready.txt\n",
            )
        ],
        "shell redirections (<<EOF, > FILE, 2>&1, < FILE) in pre_cmd",
        args={"launcher": True},
    )
    make(
        "NEL803",
        "pass",
        "real_mount",
        "generic",
        [
            (
                "    mount_home: false\n",
                "    mount_home: false\n    deployment:\n      /lustre/hf-cache: /hf-cache\n",
            )
        ],
        "a real mount source",
        args={"launcher": True},
    )
