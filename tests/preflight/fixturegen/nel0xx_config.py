# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""NEL0xx: the config as text and as a schema (interpolation, blanks, placeholders,
unknown, rejected, mistyped and duplicate keys, defaults, task names, refusals, nel-next)."""

from .common import BASE, HEAD, ROOT, make

# NEL011 nel-next config (its own schema, so no base plus an edit). Shaped after our
# recipes/examples/example_eval_next.yaml, cut down.
NEL_NEXT = """services:
  model:
    type: vllm
    model: /lustre/models/model-fp8
    served_model_name: model-fp8
    image: vllm/vllm-openai:v0.26.0
benchmarks:
  - name: terminal_bench_2_1
    service: model
cluster:
  type: slurm
  account: team-a
output:
  dir: /lustre/evals
"""


def generate():
    # NEL001 interpolation
    make(
        "NEL001",
        "fail",
        "brace_in_block_comment",
        "mrcr",
        [
            (
                "                  cd /opt/Gym\n",
                "                  # cache dir is ${HOME}/.cache\n                  cd /opt/Gym\n",
            )
        ],
        "a ${HOME} inside a shell comment of a block-scalar command",
    )
    make(
        "NEL001",
        "fail",
        "bash_default_syntax",
        "generic",
        [
            (
                "    DUMMY_API_KEY: lit:dummy\n",
                "    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    export CACHE=${CACHE_DIR:-cache}\n",
            )
        ],
        "bash ${X:-default} is not OmegaConf syntax",
    )
    make(
        "NEL001",
        "fail",
        "missing_node",
        "generic",
        [("experiment_name: gpqa-model-fp8", "experiment_name: gpqa-${deployment.model_name}")],
        "a reference to a key that does not exist",
    )
    make(
        "NEL001",
        "pass",
        "plain_dollar_vars",
        "mrcr",
        [
            (
                "                  cd /opt/Gym\n",
                "                  # cache dir is $HOME/.cache, escaped \\${HOME} is fine too\n                  cd /opt/Gym\n",
            )
        ],
        "$HOME and \\${HOME} pass through",
    )

    # NEL002 ???
    make(
        "NEL002",
        "fail",
        "account_blank",
        "generic",
        [
            ("account: eval-team", "account: ???"),
            ("served_model_name: model-fp8", "served_model_name: ???"),
        ],
        "two ??? values",
    )
    make(
        "NEL002",
        "fail",
        "inherited_hostname",
        "generic",
        [("  hostname: login.example.org\n", "")],
        "slurm/default's hostname: ??? is inherited",
    )
    make(
        "NEL002",
        "pass",
        "template_blanks",
        "generic",
        [("account: eval-team", "account: ???")],
        "with --template a ??? is info",
        args={"template": True},
    )
    make(
        "NEL002",
        "pass",
        "filled_by_override",
        "generic",
        [("account: eval-team", "account: ???")],
        "an -o override fills the blank",
        args={"overrides": ["execution.account=team-b"]},
    )

    # NEL003 placeholders
    make(
        "NEL003",
        "pass",
        "template_placeholders_are_blanks",
        "generic",
        [("    --max-num-seqs 32", "    --max-num-seqs 32\n    --reasoning-parser <PARSER>")],
        "under --template a <PLACEHOLDER> is a blank: info, as ??? is",
        args={"template": True},
    )
    make(
        "NEL003",
        "fail",
        "mount_placeholder",
        "mrcr",
        [
            (
                "      /lustre/hf-cache: /hf-cache\n    evaluation:",
                "      <HOST_HF_CACHE>: /hf-cache\n    evaluation:",
            )
        ],
        "<HOST_HF_CACHE> as a mount source",
    )
    make(
        "NEL003",
        "fail",
        "changeme",
        "generic",
        [("experiment_name: gpqa-model-fp8", "experiment_name: CHANGEME-model")],
        "CHANGEME in the export block",
    )
    make(
        "NEL003",
        "fail",
        "parser_placeholder",
        "generic",
        [("    --max-num-seqs 32", "    --max-num-seqs 32\n    --reasoning-parser <PARSER>")],
        "<PARSER> in the serving command",
    )
    make(
        "NEL003",
        "pass",
        "placeholder_in_yaml_comment",
        "generic",
        [
            (
                "  served_model_name: model-fp8\n",
                "  served_model_name: model-fp8  # e.g. <SERVED_NAME>\n",
            )
        ],
        "placeholders in YAML comments are ignored",
    )

    # NEL004 unknown key
    make(
        "NEL004",
        "fail",
        "walltime_typo",
        "generic",
        [('  walltime: "04:00:00"\n', '  walltim: "04:00:00"\n')],
        "execution.walltim (typo)",
    )
    make(
        "NEL004",
        "fail",
        "deployment_typo",
        "generic",
        [
            (
                "  served_model_name: model-fp8\n",
                "  served_model_name: model-fp8\n  tensor_paralel_size: 2\n",
            )
        ],
        "deployment.tensor_paralel_size",
    )
    make(
        "NEL004",
        "fail",
        "top_level_typo",
        "generic",
        [("evaluation:\n", "evalution_notes: x\nevaluation:\n")],
        "unknown top-level key",
    )
    make(
        "NEL004",
        "fail",
        "adapter_typo",
        "generic",
        [
            (
                "        api_key_name: DUMMY_API_KEY\n",
                "        api_key_name: DUMMY_API_KEY\n        adapter_config:\n          use_cachng: false\n",
            )
        ],
        "adapter_config.use_cachng",
    )
    make(
        "NEL004",
        "pass",
        "executor_keys_not_in_defaults",
        "generic",
        [
            (
                '  walltime: "04:00:00"\n',
                '  walltime: "04:00:00"\n  gpus_per_node: 8\n  auto_export:\n    destinations: [mlflow]\n    launcher_install_cmd: pip install "nemo-evaluator-launcher[all]==0.2.6"\n',
            )
        ],
        "keys read by executors but absent from YAML defaults are valid",
    )
    make(
        "NEL004",
        "pass",
        "referenced_variable",
        "generic",
        [
            ("evaluation:\n", "model_vars:\n  parser: qwen3\n\nevaluation:\n"),
            (
                "    --max-num-seqs 32",
                "    --max-num-seqs 32\n    --reasoning-parser ${model_vars.parser}",
            ),
        ],
        "a custom key used through an interpolation is a config variable",
    )
    # NEL011: whole configs, not a base plus an edit
    for kind, name, text, what in (
        ("fail", "nel_next_config", NEL_NEXT, "a nel-next config: no other rule runs"),
        (
            "pass",
            "nel_026_with_a_stray_services_key",
            BASE["generic"] + "services:\n  note: not read\nbenchmarks: []\n",
            "0.2.6 sections present: read as 0.2.6 (NEL004 reports the strays)",
        ),
    ):
        d = ROOT / "NEL011" / kind
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.yaml").write_text(HEAD.format(code="NEL011", kind=kind, what=what) + text)

    # NEL005 rejected
    make(
        "NEL005",
        "fail",
        "cluster_block",
        "generic",
        [],
        "a nel-next cluster: block",
        append="\ncluster:\n  sbatch_comment: benchmarking\n",
    )
    make(
        "NEL005",
        "fail",
        "execution_env_vars",
        "generic",
        [
            (
                "  mounts:\n    mount_home: false\n",
                "  mounts:\n    mount_home: false\n  env_vars:\n    HF_HOME: lit:/hf-cache\n",
            )
        ],
        "execution.env_vars",
    )
    make(
        "NEL005",
        "pass",
        "sbatch_comment_in_execution",
        "generic",
        [('  walltime: "04:00:00"\n', '  walltime: "04:00:00"\n  sbatch_comment: benchmarking\n')],
        "sbatch_comment under execution",
    )

    # NEL006 types/enums
    make(
        "NEL006",
        "fail",
        "env_value_int",
        "generic",
        [("    DUMMY_API_KEY: lit:dummy\n", "    DUMMY_API_KEY: lit:dummy\n    MAX_TURNS: 250\n")],
        "an integer env value",
    )
    make(
        "NEL006",
        "fail",
        "mount_home_string",
        "generic",
        [("    mount_home: false", '    mount_home: "false"')],
        "mount_home as a string",
    )
    make(
        "NEL006",
        "fail",
        "deployment_type",
        "generic",
        [
            (
                "  image: vllm/vllm-openai:v0.26.0\n",
                "  type: vlm\n  image: vllm/vllm-openai:v0.26.0\n",
            )
        ],
        "unknown deployment.type",
    )
    make("NEL006", "pass", "numbers_as_numbers", "generic", [], "the base config")

    # NEL007 defaults
    make(
        "NEL007",
        "fail",
        "plain_slurm",
        "generic",
        [("  - execution: slurm/default", "  - execution: slurm")],
        "execution: slurm (the option is slurm/default)",
    )
    make(
        "NEL007",
        "fail",
        "deployment_typo",
        "generic",
        [("  - deployment: vllm", "  - deployment: vllmm")],
        "deployment: vllmm",
    )
    make(
        "NEL007",
        "pass",
        "vllm_ray",
        "generic",
        [("  - deployment: vllm", "  - deployment: vllm_ray")],
        "vllm_ray inherits vllm",
    )

    # NEL008 duplicates
    make(
        "NEL008",
        "fail",
        "execution_twice",
        "generic",
        [],
        "execution written twice",
        append="\nexecution:\n  partition: batch\n",
    )
    make(
        "NEL008",
        "pass",
        "single_mapping",
        "generic",
        [('  walltime: "04:00:00"\n', '  walltime: "04:00:00"\n  partition: batch\n')],
        "one execution mapping",
    )

    # NEL009 task names (the launcher's own 0.2.6 catalog)
    make(
        "NEL009",
        "fail",
        "ambiguous_gpqa",
        "generic",
        [
            (
                "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n",
                "    - name: gpqa_diamond\n",
            )
        ],
        "gpqa_diamond exists in two harnesses",
    )
    make(
        "NEL009",
        "fail",
        "unknown_task",
        "generic",
        [
            (
                "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n",
                "    - name: gpqa_diamondd\n",
            )
        ],
        "no such task in the catalog",
    )
    make(
        "NEL009",
        "pass",
        "qualified",
        "generic",
        [
            (
                "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n",
                "    - name: simple_evals.gpqa_diamond\n",
            )
        ],
        "harness-qualified name",
    )
    make("NEL009", "pass", "explicit_container", "generic", [], "any name with a container")

    # NEL010 structural refusals
    make(
        "NEL010",
        "fail",
        "url_with_deployment",
        "generic",
        [],
        "target.api_endpoint.url beside a deployment",
        append="target:\n  api_endpoint:\n    url: http://localhost:8000/v1/chat/completions\n",
    )
    make(
        "NEL010",
        "fail",
        "none_without_target",
        "generic",
        [("  - deployment: vllm\n", "  - deployment: none\n")],
        "deployment: none and no target",
    )
    make(
        "NEL010",
        "pass",
        "deployment_provides_endpoint",
        "generic",
        [],
        "no target with a deployment",
    )
