# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""Regenerate the golden fixtures under tests/preflight/fixtures/NEL*/ from the two clean
bases in fixtures/_base/ (each fixture is a base plus a small text edit).

    bash tests/run.sh --python tests/preflight/make_fixtures.py

Edit this file, not the generated YAML, when a fixture needs to change. A fixture that is a
whole config of its own may be written by hand beside the generated ones (no entry here);
delete a generated fixture by hand when its entry goes.
"""

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent / "fixtures"
BASE = {n: (ROOT / "_base" / f"{n}.yaml").read_text() for n in ("mrcr", "generic")}
HEAD = "# Golden fixture for {code} ({kind}): {what}\n"


def make(code, kind, name, base, subs=(), what="", args=None, append=""):
    text = BASE[base]
    for old, new in subs:
        assert old in text, (code, name, old)
        text = text.replace(old, new, 1)
    text = HEAD.format(code=code, kind=kind, what=what) + text + append
    d = ROOT / code / kind
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.yaml").write_text(text)
    if args:
        (d / f"{name}.args.json").write_text(json.dumps(args, indent=2) + "\n")


def ckpt(name, config, quant=None):
    d = ROOT / "_checkpoints" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    if quant:
        (d / "hf_quant_config.json").write_text(json.dumps(quant, indent=2) + "\n")


# No wipe first: some fixtures are written by hand (a whole config rather than a base plus
# an edit) and live beside these; the generator overwrites only the files it makes.

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
    [("  image: vllm/vllm-openai:v0.26.0\n", "  type: vlm\n  image: vllm/vllm-openai:v0.26.0\n")],
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
make("NEL010", "pass", "deployment_provides_endpoint", "generic", [], "no target with a deployment")

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
        )
    ],
    "runtime:NEL_INVOCATION_ID at top level",
)
make("NEL102", "pass", "evaluation_runtime", "mrcr", [], "the mapping under evaluation.env_vars")

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
make("NEL301", "pass", "referenced", "mrcr", [], "gpu_memory_utilization referenced by the command")

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
    "NEL306",
    "fail",
    "hash_in_folded_command",
    "mrcr",
    [("    --enable-prefix-caching\n", "    --enable-prefix-caching  # keep KV between turns\n")],
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
    [("registry.example.org/gym/nemo-gym-git:26.05", "nvcr.io/nvidia/eval-factory/nemo-gym:26.05")],
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
    [("                  git checkout --quiet {{config.params.extra.nemo_gym.install_on_the_fly.commit}}\n", "")],
    "a custom command that never reads the pin",
)
make("NEL410", "pass", "pin_checked_out", "mrcr", [], "the command checks the pin out")

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
    [("experiment_name: gpqa-model-fp8", "experiment_name: gpqa-${deployment.served_model_name}")],
    "${deployment.served_model_name} in export",
)
make("NEL502", "pass", "literal", "generic", [], "literal export values")

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


def C(n, context=None):
    args = {"checkpoint": f"../../_checkpoints/{n}"}
    if context is not None:
        args["context"] = context
    return args


# A MoE with custom code and no KV calibration, served as the golden serves it.
MOE_NOKV = [
    (
        "    --enable-prefix-caching\n",
        "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n",
    )
]
NO_OVERRIDE = [("    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n", "")]


MOE_OK = [
    (
        "    --enable-prefix-caching\n",
        "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n    --kv-cache-dtype fp8\n",
    )
]

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

V128 = [
    (
        'benchmarks/mrcr/config_n3_1m.yaml]"\n                  +hf_token',
        'benchmarks/mrcr/config_n3_128k.yaml]"\n                  +hf_token',
    ),
    (
        'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
        'benchmarks/mrcr/config_n3_128k.yaml]"\n                  ++split',
    ),
]
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
        ("checkpoint_path: /lustre/ckpt/model-fp8", "checkpoint_path: /lustre/ckpt/model-nvfp4"),
        ("served_model_name: model-fp8", "served_model_name: model-nvfp4"),
    ],
    "only checkpoint keys differ",
    args={"pair_base": "../../_base/generic.yaml"},
)

# launcher
LOCAL = "../../_base/generic.yaml"
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
            "    DUMMY_API_KEY: lit:dummy\n  pre_cmd: |\n    cat <<EOF > /tmp/ready.txt 2>&1\n    ready\n    EOF\n    wc -l < /tmp/ready.txt\n",
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

# NEL310-NEL314: `vllm serve` against the argument table of the image's vLLM version
# (tools/evalkit/data/vllm-<version>-serve.json, generated from the vLLM wheels).
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
