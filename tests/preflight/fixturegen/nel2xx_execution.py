# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL2xx: the SLURM execution block (mounts, walltime, GPUs, nodes, sequences, images)."""

from .common import make


def generate():
    # NEL201
    make(
        "NEL201",
        "fail",
        "inherited_true",
        "generic",
        [("  mounts:\n    mount_home: false\n", "")],
        "mount_home inherited from slurm/default",
    )
    make(
        "NEL201",
        "fail",
        "explicit_true",
        "generic",
        [("    mount_home: false", "    mount_home: true")],
        "mount_home: true",
    )
    make("NEL201", "pass", "false", "generic", [], "mount_home: false")

    # NEL202
    make(
        "NEL202",
        "fail",
        "unquoted_ten_hours",
        "generic",
        [('  walltime: "04:00:00"', "  walltime: 10:00:00")],
        "walltime: 10:00:00 reads as 36000",
    )
    make(
        "NEL202",
        "fail",
        "bad_format",
        "generic",
        [('  walltime: "04:00:00"', '  walltime: "4h"')],
        "walltime: 4h",
    )
    make(
        "NEL202",
        "pass",
        "quoted",
        "generic",
        [('  walltime: "04:00:00"', '  walltime: "10:00:00"')],
        "quoted walltime",
    )

    # NEL203
    make(
        "NEL203",
        "fail",
        "above_max",
        "generic",
        [('  walltime: "04:00:00"', '  walltime: "48:00:00"\n  max_walltime: "24:00:00"')],
        "walltime > max_walltime",
    )
    make(
        "NEL203",
        "pass",
        "below_max",
        "generic",
        [('  walltime: "04:00:00"', '  walltime: "04:00:00"\n  max_walltime: "24:00:00"')],
        "walltime < max_walltime",
    )

    # NEL204
    make(
        "NEL204",
        "fail",
        "inherited_gres",
        "mrcr",
        [("  gres: gpu:4\n", "")],
        "slurm/default gpu:8 beside TP2 x DP2",
    )
    make(
        "NEL204",
        "fail",
        "too_few_gpus",
        "generic",
        [('  walltime: "04:00:00"\n', '  walltime: "04:00:00"\n  gres: gpu:4\n')],
        "gpu:4 for TP1 x DP8",
    )
    make("NEL204", "pass", "matched", "mrcr", [], "gpu:4 for TP2 x DP2")
    make(
        "NEL204",
        "pass",
        "default_command",
        "generic",
        [
            (
                "  command: >-\n    vllm serve /checkpoint\n    --served-model-name ${deployment.served_model_name}\n    --host 0.0.0.0\n    --port ${deployment.port}\n    --tensor-parallel-size 1\n    --data-parallel-size 8\n    --max-model-len 131072\n    --max-num-seqs 32\n",
                "",
            )
        ],
        "the bundled vllm command (TP8) on gpu:8",
    )

    # NEL205
    make(
        "NEL205",
        "fail",
        "three_over_two",
        "mrcr",
        [("  num_nodes: 4\n  num_instances: 4", "  num_nodes: 3\n  num_instances: 2")],
        "3 nodes / 2 instances",
    )
    make(
        "NEL205",
        "pass",
        "four_over_two",
        "mrcr",
        [
            ("  num_nodes: 4\n  num_instances: 4", "  num_nodes: 4\n  num_instances: 2"),
            (
                "    --data-parallel-size 2\n",
                "    --data-parallel-size 2\n    --pipeline-parallel-size 2\n",
            ),
            ("    --max-num-seqs 32\n", "    --max-num-seqs 64\n"),
        ],
        "4 nodes / 2 instances",
    )

    # NEL206
    make(
        "NEL206",
        "fail",
        "above_ceiling",
        "mrcr",
        [("    --max-num-seqs 32", "    --max-num-seqs 64")],
        "64 > ceil(256/(4x2)) = 32",
    )
    make(
        "NEL206",
        "fail",
        "single_instance",
        "generic",
        [("    --max-num-seqs 32", "    --max-num-seqs 64")],
        "64 > ceil(256/8) = 32",
    )
    make("NEL206", "pass", "at_ceiling", "mrcr", [], "32 = ceil(256/(4x2))")
    make(
        "NEL206",
        "pass",
        "parallelism_blank",
        "mrcr",
        [("        parallelism: 256", "        parallelism: ???")],
        "parallelism ??? (template)",
        args={"template": True},
    )

    # NEL207
    make(
        "NEL207",
        "fail",
        "latest_vllm",
        "generic",
        [("  image: vllm/vllm-openai:v0.26.0", "  image: vllm/vllm-openai:latest")],
        ":latest",
    )
    make(
        "NEL207",
        "fail",
        "default_image",
        "generic",
        [("  image: vllm/vllm-openai:v0.26.0\n", "")],
        "the vllm group's default image is :latest",
    )
    make("NEL207", "pass", "pinned", "generic", [], "pinned images")
