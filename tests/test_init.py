"""`evalkit init`: configs written from the shipped templates, checked by what init did not write.

Oracles: topology computed by hand in the test (the arithmetic written out) and
`evalkit size` (the CLI, for the sizing), `evalkit preflight` (its rules, for the
config), the real nel 0.2.6 dry-run (tests marked `launcher`) and the shipped templates
themselves (every template comment survives). The checkpoint fixtures under
tests/fixtures/init/ name their sources in their README.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

import pytest
import yaml

from evalkit.benchmarks.mrcr.variants import GYM_PIN
from evalkit.benchmarks.tau3.facts import GYM_PIN as TAU3_PIN
from evalkit.checkpoint import load_checkpoint
from evalkit.preflight.runner import Options, check_file, check_pair
from helpers.nel import blank_paths

FIXTURES = Path(__file__).parent / "fixtures" / "init"
FP8_MOE = FIXTURES / "qwen3-235b-a22b-fp8"
FP8_MOE_BF16 = FIXTURES / "qwen3-235b-a22b-bf16"
NVFP4_HYBRID = FIXTURES / "nemotron3-nano-nvfp4"
MRCR_TEMPLATE = Path(__file__).parents[1] / "recipes/examples/gym/example_mrcr.yaml"
GYM_PARAMS = ("evaluation", "nemo_evaluator_config", "config", "params", "extra", "nemo_gym")

CLUSTER = {
    "hostname": "login.cluster.example",
    "account": "my-team",
    "partition": "batch",
    "output_dir": "/lustre/my-team/evals",
    "walltime": "04:00:00",
    "gym_image": "registry.example/my-team/nemo-gym-git:26.05",
    "thinking": True,
}
# 8 x 80 GB nodes (H100 class) and 8 x 141 GB nodes (H200 class).
FP8_FACTS = {
    **CLUSTER,
    "gpus_per_node": 8,
    "gpu_mem_gib": 80,
    "max_nodes": 2,
    "checkpoint_path": "/lustre/models/Qwen3-235B-A22B-FP8",
    "served_model_name": "qwen3-235b-fp8",
    "reasoning_parser": "qwen3",
}
NVFP4_FACTS = {
    **CLUSTER,
    "gpus_per_node": 8,
    "gpu_mem_gib": 141,
    "max_nodes": 2,
    "checkpoint_path": "/lustre/models/Nemotron-3-Nano-NVFP4",
    "served_model_name": "nano-nvfp4",
    "reasoning_parser": "nemotron_v3",
}
AA_FACTS = {
    **FP8_FACTS,
    "cpu_partition": "cpu",
    "tool_call_parser": "qwen3_coder",
    "judge_url": "https://inference.example/v1",
    "tau2_url": "https://inference.example/v1/chat/completions",
    "gdpval_sif_dir": "/lustre/my-team/gdpval/sif",
    "gdpval_ref_dir": "/lustre/my-team/gdpval/ref",
}
# What the launcher reads at submit time; set so preflight judges the config, not the shell.
LAUNCH_ENV = {
    "USER": "ci",
    "HF_TOKEN": "x",
    "INFERENCE_API_KEY": "x",
    "TAVILY_API_KEY": "x",
    "MLFLOW_TRACKING_URI": "http://127.0.0.1:5000",
    "TAU3_USER_BASE_URL": "https://user-sim.example/v1",
    "TAU3_USER_MODEL": "user-sim",
}


def blanks(text: str) -> list[str]:
    """`???` values left in a config (comments may still mention the blank marker)."""
    path = Path(tempfile.mkdtemp()) / "c.yaml"
    path.write_text(text)
    return blank_paths(path)


def write_facts(tmp_path: Path, facts: dict) -> Path:
    path = tmp_path / "facts.yaml"
    path.write_text(yaml.safe_dump(facts))
    return path


def init(run_cli, tmp_path, task, facts, checkpoint, out_name="out.yaml", *extra):
    out = tmp_path / out_name
    code, stdout, stderr = run_cli(
        "init",
        task,
        "--checkpoint",
        checkpoint,
        "--facts",
        write_facts(tmp_path, facts),
        "-o",
        out,
        *extra,
    )
    return code, out, stderr


def findings(path: Path, checkpoint: Path | None = None, context: int | None = None) -> list:
    ckpt = load_checkpoint(checkpoint, documented_context=context) if checkpoint else None
    return check_file(str(path), Options(checkpoint=ckpt, env=LAUNCH_ENV))


def errors(path: Path, checkpoint: Path | None = None, context: int | None = None) -> list:
    return [f for f in findings(path, checkpoint, context) if f.severity == "error"]


def size_json(run_cli, checkpoint, *args) -> dict:
    code, out, _ = run_cli("size", "--checkpoint", checkpoint, *args, "--format", "json")
    assert code == 0
    return json.loads(out)


def command_flag(text: str, flag: str) -> str | None:
    data = yaml.safe_load(text)
    words = data["deployment"]["command"].split()
    return words[words.index(flag) + 1] if flag in words else None


def gym(text: str) -> dict:
    node = yaml.safe_load(text)
    for key in GYM_PARAMS:
        node = node[key]
    return node


# -- the two done-when cases ----------------------------------------------------------


def test_fp8_moe_mrcr_128k_is_sized_like_evalkit_size(run_cli, tmp_path):
    code, out, stderr = init(run_cli, tmp_path, "mrcr-128k", FP8_FACTS, FP8_MOE)
    assert code == 0, stderr
    text = out.read_text()
    assert blanks(text) == []
    assert errors(out, FP8_MOE) == []

    # The oracle: `evalkit size` with the inputs the 128k variant implies. NEL604 wants
    # --max-model-len = the trained context (262144) when that leaves answer room. The
    # reference load 256 preempts here, so init serves TP 8 at load 14
    # (tests/test_init_fit.py has that arithmetic by hand).
    sized = size_json(
        run_cli, FP8_MOE, "--gpu-mem-gib", "80", "--gpus-per-node", "8",
        "--max-model-len", "262144", "--parallelism", "14", "--num-instances", "2",
        "--num-nodes", "2", "--gpu-memory-utilization", "0.95", "--tensor-parallel-size", "8",
    )  # fmt: skip
    assert_sized_as(text, sized)
    # The same topology by hand, independent of sizing.plan (fixture: 94 layers, all
    # attention, 4 KV heads x head_dim 128, 64 query heads, 236e9 weight bytes, fp8 KV):
    gib = 1024**3
    pool_per_gpu = {tp: 80 * 0.95 * gib - 236e9 / tp - 4 * gib for tp in (1, 2, 4)}
    assert pool_per_gpu[1] < 0 and pool_per_gpu[2] < 0  # weights alone overflow TP 1 and 2
    kv_per_token_tp4 = 94 * 2 * (4 // 4) * 128 * 1  # layers x K,V x kv heads/GPU x dim x 1 B
    per_seq = 262144 * kv_per_token_tp4  # 6_308_233_216 B for one 262144-token sequence
    assert pool_per_gpu[4] // per_seq == 2  # 18.3e9 B of pool: two such sequences fit
    # The reference load 256 would need ceil(256 / (DP 2 x 2 instances)) = 64 per replica at
    # TP 4, where 2 fit: init raises TP to 8 (KV heads replicate, 1 per GPU as at TP 4).
    pool_tp8 = 80 * 0.95 * gib - 236e9 / 8 - 4 * gib
    per_seq_tp8 = 262144 * 94 * 2 * 1 * 128 * 1
    assert pool_tp8 // per_seq_tp8 == 7  # 7 per replica beats TP 4's 2
    dp = 8 * (2 // 2) // 8  # GPUs of one instance / TP
    assert_topology(text, tp=8, dp=dp, seqs=7)
    assert (
        yaml.safe_load(text)["evaluation"]["nemo_evaluator_config"]["config"]["params"][
            "parallelism"
        ]
        == 7 * dp * 2
    )  # the load lowered to what fits: 14
    assert command_flag(text, "--max-model-len") == "262144"
    assert "--enable-expert-parallel" in yaml.safe_load(text)["deployment"]["command"]
    data = yaml.safe_load(text)
    assert data["deployment"]["kv_cache_dtype"] == sized["kv_cache_dtype"] == "fp8"
    assert data["execution"]["gres"] == "gpu:8"
    assert (data["execution"]["num_nodes"], data["execution"]["num_instances"]) == (2, 2)
    # 262144 <= max_position_embeddings: no long-length override.
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN" not in data["deployment"]["env_vars"]
    assert "# init: fp8: hf_quant_config.json kv_cache_quant_algo=FP8" in text
    assert_mrcr_invariants(text, "config_n3_128k.yaml", "qwen3")


def test_nvfp4_hybrid_mrcr_1m_follows_the_golden_and_says_so(run_cli, tmp_path):
    code, out, stderr = init(run_cli, tmp_path, "mrcr-1m", NVFP4_FACTS, NVFP4_HYBRID)
    assert code == 0, stderr
    assert "Confirm the model card documents at least 1048576 tokens" in stderr
    text = out.read_text()
    assert blanks(text) == []
    assert errors(out) == []
    # config.json says 262144: without the card's context NEL603 asks to confirm it...
    assert errors(out, NVFP4_HYBRID) == []
    assert "NEL603" in [f.rule for f in findings(out, NVFP4_HYBRID)]
    # ...and with the documented 1M context (the golden model card) nothing is left.
    assert [f.rule for f in findings(out, NVFP4_HYBRID, 1048576) if f.rule == "NEL603"] == []
    assert errors(out, NVFP4_HYBRID, 1048576) == []

    sized = size_json(
        run_cli, NVFP4_HYBRID, "--gpu-mem-gib", "141", "--gpus-per-node", "8",
        "--max-model-len", "1100000", "--parallelism", "256", "--num-instances", "2",
        "--num-nodes", "2", "--gpu-memory-utilization", "0.95",
    )  # fmt: skip
    assert_sized_as(text, sized)
    # By hand (fixture: pattern with 6 attention `*` and 23 Mamba `M` layers, 2 KV heads x
    # 128, bf16 state and KV, 19.5e9 weight bytes): TP 1 already fits, so TP stays 1.
    gib = 1024**3
    pool_tp1 = 141 * 0.95 * gib - 19.5e9 - 4 * gib
    kv_per_token = 6 * 2 * 2 * 128 * 2  # attention layers x K,V x kv heads x dim x 2 B
    inner = 64 * 64  # mamba_num_heads x mamba_head_dim
    mamba_state = inner * 128 + (4 - 1) * (inner + 2 * 8 * 128)  # SSM + conv elements
    per_seq = 1100000 * kv_per_token + 23 * mamba_state * 2
    assert pool_tp1 // per_seq == 17
    dp = 8 * (2 // 2) // 1
    assert_topology(text, tp=1, dp=dp, seqs=-(-256 // (dp * 2)))  # 16 per replica
    assert command_flag(text, "--max-model-len") == "1100000"
    data = yaml.safe_load(text)
    assert data["deployment"]["kv_cache_dtype"] == "auto"  # no KV calibration
    assert data["deployment"]["env_vars"]["VLLM_ALLOW_LONG_MAX_MODEL_LEN"] == "lit:1"
    command = data["deployment"]["command"]
    assert "--enable-expert-parallel" in command and "--trust-remote-code" in command
    assert_mrcr_invariants(text, "config_n3_1m.yaml", "nemotron_v3")


def assert_topology(text: str, tp: int, dp: int, seqs: int) -> None:
    """The serving command carries a topology computed by hand in the test."""
    flags = ("--tensor-parallel-size", "--data-parallel-size", "--max-num-seqs")
    assert [command_flag(text, f) for f in flags] == [str(tp), str(dp), str(seqs)]


def assert_sized_as(text: str, sized: dict) -> None:
    """The serving command carries the topology and concurrency `evalkit size` gave."""
    assert command_flag(text, "--tensor-parallel-size") == str(sized["tensor_parallel_size"])
    assert command_flag(text, "--data-parallel-size") == str(sized["data_parallel_size"])
    assert command_flag(text, "--max-num-seqs") == str(sized["max_num_seqs"])


def assert_mrcr_invariants(text: str, variant: str, parser: str) -> None:
    data = yaml.safe_load(text)
    params = data["evaluation"]["nemo_evaluator_config"]["config"]["params"]
    g = gym(text)
    # Output uncapped, in the params and in the gym's own request parameters.
    assert params["max_new_tokens"] is None
    assert "++responses_create_params.max_output_tokens=null" in g["collect_rollout_params"]
    # The variant, identical in both blocks.
    paths = [re.findall(r"benchmarks/mrcr/[\w.]+", g[k]) for k in ("data_prep_params",
             "collect_rollout_params")]  # fmt: skip
    assert paths == [[f"benchmarks/mrcr/{variant}"]] * 2
    # The Gym pin in full.
    assert g["install_on_the_fly"]["commit"] == GYM_PIN and len(GYM_PIN) == 40
    # The reasoning parser reaches vLLM through the command's interpolation.
    assert data["deployment"]["reasoning_parser"] == parser
    assert "--reasoning-parser ${deployment.reasoning_parser}" in data["deployment"]["command"]
    # Every derived command value has its `# init:` provenance line above the command.
    for needle in ("# init: TP ", "# init: --max-num-seqs", "# init: --max-model-len"):
        assert needle in text


def test_template_comments_survive(run_cli, tmp_path):
    code, out, _ = init(run_cli, tmp_path, "mrcr-1m", NVFP4_FACTS, NVFP4_HYBRID)
    assert code == 0
    written = out.read_text().splitlines()
    template = MRCR_TEMPLATE.read_text().splitlines()
    comments = [
        line.strip()
        for line in template
        if line.strip().startswith("#") and "yaml-language-server" not in line
    ]
    assert comments
    stripped = {line.strip() for line in written}
    # The header and the blocks above the values init decides are replaced by init's own
    # notes (tests/test_init_comments.py); every other template comment stays.
    from evalkit.config.textedit import Doc
    from evalkit.init.comments import clear_template_prose

    doc = Doc(MRCR_TEMPLATE.read_text(), "template")
    clear_template_prose(doc, "mrcr")
    body = doc.lines[next(i for i, x in enumerate(doc.lines) if x.startswith("defaults:")) :]
    kept = [x.strip() for x in body if x.strip().startswith("#") and x.strip() != "#"]
    assert len(kept) > 30
    assert [c for c in kept if c not in stripped] == []
    assert "# Never cap MRCR output: the answer reproduces a whole earlier turn." in kept


# -- launcher: the real nel 0.2.6 dry-run ------------------------------------------------


@pytest.mark.launcher
@pytest.mark.parametrize(
    ("task", "facts", "checkpoint", "variant", "parser"),
    [
        ("mrcr-128k", FP8_FACTS, FP8_MOE, "config_n3_128k.yaml", "qwen3"),
        ("mrcr-1m", NVFP4_FACTS, NVFP4_HYBRID, "config_n3_1m.yaml", "nemotron_v3"),
    ],
)
def test_mrcr_configs_pass_the_real_dry_run(
    run_cli, tmp_path, task, facts, checkpoint, variant, parser
):
    from helpers.nel import dry_run

    code, out, _ = init(run_cli, tmp_path, task, facts, checkpoint)
    assert code == 0
    result = dry_run(out)
    assert result.returncode == 0, result.stderr[-3000:]
    (script,) = result.scripts
    assert f"--reasoning-parser {parser}" in script
    assert f"benchmarks/mrcr/{variant}" in script and GYM_PIN in script
    assert "max_output_tokens=null" in script
    assert f"--max-num-seqs {command_flag(out.read_text(), '--max-num-seqs')}" in script


@pytest.mark.launcher
def test_aa_suite_configs_pass_the_real_dry_run(run_cli, tmp_path):
    from helpers.nel import dry_run

    code, out, stderr = init(run_cli, tmp_path, "aa", AA_FACTS, FP8_MOE, "aa")
    assert code == 0, stderr
    for name in ("aa.yaml", "tau3_banking.yaml", "gdpval.yaml"):
        result = dry_run(out / name, env={"TAVILY_API_KEY": "tvly-dry-run"})
        assert result.returncode == 0, (name, result.stderr[-3000:])


# -- AA suite and GDPVal ------------------------------------------------------------------


def test_aa_writes_the_branch_set_and_each_passes_preflight(run_cli, tmp_path):
    code, out, stderr = init(run_cli, tmp_path, "aa", AA_FACTS, FP8_MOE, "aa")
    assert code == 0, stderr
    assert sorted(p.name for p in out.iterdir()) == ["aa.yaml", "gdpval.yaml", "tau3_banking.yaml"]
    for path in out.iterdir():
        text = path.read_text()
        assert blanks(text) == [], path.name
        assert errors(path, FP8_MOE) == [], path.name
        assert "benchmarks/mrcr" not in text, path.name  # MRCR is never part of AA
    aa = yaml.safe_load((out / "aa.yaml").read_text())
    judges = [
        t["nemo_evaluator_config"]["config"]["params"]["extra"].get("judge", {}).get("url")
        for t in aa["evaluation"]["tasks"]
    ]
    assert [j for j in judges if j] == [AA_FACTS["judge_url"]] * 3
    tau3 = yaml.safe_load((out / "tau3_banking.yaml").read_text())
    assert tau3["deployment"]["tool_call_parser"] == "qwen3_coder"
    assert "--kv-cache-dtype fp8" in " ".join(tau3["deployment"]["command"].split())
    assert "tau2_bench_telecom" not in (out / "aa.yaml").read_text()  # superseded


def test_gdpval_mounts_judge_and_agent_load(run_cli, tmp_path):
    facts = {k: v for k, v in AA_FACTS.items() if k not in ("tool_call_parser", "tau2_url")}
    code, out, stderr = init(run_cli, tmp_path, "gdpval", facts, FP8_MOE)
    assert code == 0, stderr
    assert errors(out, FP8_MOE) == []
    data = yaml.safe_load(out.read_text())
    assert data["gdpval_judge"]["base_url"] == AA_FACTS["judge_url"]
    assert data["execution"]["mounts"]["evaluation"] == {
        AA_FACTS["gdpval_sif_dir"]: "/gdpval/sif",
        AA_FACTS["gdpval_ref_dir"]: "/gdpval_ref_files",
    }
    # The server's load is the agent concurrency (220), as recipes/tasks/gym/gdpval.md says.
    dp = int(command_flag(out.read_text(), "--data-parallel-size"))
    assert command_flag(out.read_text(), "--max-num-seqs") == str(-(-220 // dp))


def test_gdpval_refuses_an_instruct_model(run_cli, tmp_path):
    facts = {**AA_FACTS, "thinking": False}
    code, out, stderr = init(run_cli, tmp_path, "gdpval", facts, FP8_MOE)
    assert code == 1 and "thinking" in stderr
    assert not out.exists()


# -- single tasks, thinking, caches ------------------------------------------------------


def test_single_task_takes_the_recipe_entry(run_cli, tmp_path):
    facts = {**FP8_FACTS, "cpu_partition": "cpu", "judge_url": "https://inference.example/v1"}
    code, out, stderr = init(run_cli, tmp_path, "aime_2025", facts, FP8_MOE)
    assert code == 0, stderr
    assert errors(out, FP8_MOE) == []
    data = yaml.safe_load(out.read_text())
    (task,) = data["evaluation"]["tasks"]
    assert task["name"] == "AIME_2025_aa_v2"
    assert (
        task["nemo_evaluator_config"]["config"]["params"]["extra"]["judge"]["url"]
        == (facts["judge_url"])
    )
    assert data["export"]["mlflow"]["tags"]["benchmark"] == "aime_2025"


def test_instruct_model_drops_the_reasoning_settings(run_cli, tmp_path):
    facts = {**FP8_FACTS, "thinking": False}
    del facts["reasoning_parser"]
    code, out, stderr = init(run_cli, tmp_path, "mrcr-128k", facts, FP8_MOE)
    assert code == 0, stderr
    assert errors(out, FP8_MOE) == []
    data = yaml.safe_load(out.read_text())
    assert "reasoning_parser" not in data["deployment"]
    assert "--reasoning-parser" not in data["deployment"]["command"]
    adapter = data["evaluation"]["nemo_evaluator_config"]["target"]["api_endpoint"]
    assert "chat_template_kwargs" not in adapter["adapter_config"]["params_to_add"]


def test_thinking_key_and_caches(run_cli, tmp_path):
    facts = {**FP8_FACTS, "thinking_key": "thinking", "hf_cache": "/lustre/hf",
             "uv_cache": "/lustre/uv"}  # fmt: skip
    code, out, stderr = init(run_cli, tmp_path, "mrcr-128k", facts, FP8_MOE)
    assert code == 0, stderr
    assert errors(out, FP8_MOE) == []
    data = yaml.safe_load(out.read_text())
    kwargs = data["evaluation"]["nemo_evaluator_config"]["target"]["api_endpoint"][
        "adapter_config"
    ]["params_to_add"]["chat_template_kwargs"]
    assert kwargs == {"thinking": True}
    mounts = data["execution"]["mounts"]
    assert mounts["deployment"] == {"/lustre/hf": "/hf-cache"}
    assert mounts["evaluation"] == {"/lustre/hf": "/hf-cache", "/lustre/uv": "/uv-cache"}
    assert data["evaluation"]["env_vars"]["UV_CACHE_DIR"] == "lit:/uv-cache"


def test_mrcr_auto_variant_follows_the_documented_context(run_cli, tmp_path):
    facts = {**NVFP4_FACTS, "context": 1048576}
    code, out, _ = init(run_cli, tmp_path, "mrcr", facts, NVFP4_HYBRID)
    assert code == 0
    assert "benchmarks/mrcr/config_n3_1m.yaml" in gym(out.read_text())["data_prep_params"]
    code, out, _ = init(run_cli, tmp_path, "mrcr", FP8_FACTS, FP8_MOE, "auto.yaml")
    assert code == 0
    assert "benchmarks/mrcr/config_n3_128k.yaml" in gym(out.read_text())["data_prep_params"]


def test_documented_context_below_the_cap_is_refused(run_cli, tmp_path):
    facts = {**FP8_FACTS, "context": 262144}
    code, out, stderr = init(run_cli, tmp_path, "mrcr-1m", facts, FP8_MOE)
    assert code == 1 and "use mrcr-128k" in stderr
    assert not out.exists()


# -- baseline ----------------------------------------------------------------------------


def test_baseline_of_differs_only_in_checkpoint_values(run_cli, tmp_path):
    code, cand, _ = init(run_cli, tmp_path, "mrcr-128k", FP8_FACTS, FP8_MOE)
    assert code == 0
    base = tmp_path / "base.yaml"
    code, _, stderr = run_cli(
        "init", "--baseline-of", cand, "--checkpoint", FP8_MOE_BF16,
        "--set", "checkpoint_path=/lustre/models/Qwen3-235B-A22B", "--set",
        "served_model_name=qwen3-235b-bf16", "--set", "gpu_mem_gib=80", "-o", base,
    )  # fmt: skip
    assert code == 0, stderr
    assert errors(base, FP8_MOE_BF16) == []
    pair = check_pair(str(base), str(cand), Options(env=LAUNCH_ENV))
    assert [(f.rule, f.severity) for f in pair] == [("NEL701", "info")]  # the KV dtype only
    b, c = yaml.safe_load(base.read_text()), yaml.safe_load(cand.read_text())
    assert b["evaluation"] == c["evaluation"]
    assert b["deployment"]["kv_cache_dtype"] == "auto"
    load = str(c["evaluation"]["nemo_evaluator_config"]["config"]["params"]["parallelism"])
    sized = size_json(
        run_cli, FP8_MOE_BF16, "--gpu-mem-gib", "80", "--gpus-per-node", "8",
        "--max-model-len", "262144", "--parallelism", load, "--num-instances", "2",
        "--num-nodes", "2", "--gpu-memory-utilization", "0.95",
    )  # fmt: skip
    assert command_flag(base.read_text(), "--tensor-parallel-size") == str(
        sized["tensor_parallel_size"]
    )
    assert command_flag(base.read_text(), "--max-num-seqs") == str(sized["max_num_seqs"])


# -- the CLI contract --------------------------------------------------------------------


def test_list_names_the_tasks(run_cli):
    code, out, _ = run_cli("init", "--list", "--format", "json")
    assert code == 0
    names = {t["name"] for t in json.loads(out)["tasks"]}
    assert {"mrcr-1m", "mrcr-128k", "gdpval", "aa", "mmlu_pro", "aime_2025", "livecodebench"} <= (
        names
    )


def test_no_facts_lists_every_required_fact(run_cli):
    code, out, _ = run_cli("init", "mrcr-1m", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    missing = doc["missing"]
    # every cluster fact names its kind, and the kinds table says what each allows
    kinds = {k["kind"] for k in doc["fact_kinds"]}
    assert all(set(m) == {"name", "description", "example", "kind"} for m in missing[1:])
    assert set(missing[0]) == {"name", "description", "example"}  # --checkpoint, a local dir
    assert {m["kind"] for m in missing[1:]} <= kinds
    assert [m["name"] for m in missing] == [
        "checkpoint", "hostname", "account", "partition", "output_dir", "gpus_per_node",
        "gpu_mem_gib", "max_nodes", "checkpoint_path", "served_model_name", "gym_image",
        "thinking", "reasoning_parser",
    ]  # fmt: skip


@pytest.mark.parametrize("baseline", [False, True])
def test_missing_checkpoint_dir_is_said_first_and_alone(run_cli, tmp_path, baseline):
    # issue 25: no facts and a wrong --checkpoint: the path is the one thing to say
    gone = tmp_path / "nonexistent"
    argv = ["--baseline-of", tmp_path / "cand.yaml"] if baseline else ["mrcr-1m"]
    code, out, err = run_cli("init", *argv, "--checkpoint", gone, "--format", "json")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.endswith(f"{gone}: checkpoint directory not found")


def test_only_the_unanswered_facts_are_listed(run_cli, tmp_path):
    facts = {k: v for k, v in FP8_FACTS.items() if k != "account"}
    code, _, stderr = init(run_cli, tmp_path, "mrcr-128k", facts, FP8_MOE, "x.yaml")
    assert code == 1
    code, out, _ = run_cli(
        "init", "aa", "--facts", write_facts(tmp_path, facts), "--checkpoint", FP8_MOE,
        "--format", "json",
    )  # fmt: skip
    names = [m["name"] for m in json.loads(out)["missing"]]
    assert names == [
        "account", "cpu_partition", "tool_call_parser", "gdpval_sif_dir", "gdpval_ref_dir",
        "judge_url",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--set", "gpus_per_node=eight"], "gpus_per_node: must be a positive integer"),
        (["--set", "gpu_mem_gb=80"], "did you mean gpu_mem_gib"),
        (["--set", "thinking"], "--set wants NAME=VALUE"),
    ],
)
def test_bad_facts_are_one_line_exit_2(run_cli, args, needle):
    code, out, err = run_cli("init", "mrcr-1m", *args)
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1


def test_malformed_facts_file_names_file_and_line(run_cli, tmp_path):
    bad = tmp_path / "facts.yaml"
    bad.write_text("hostname: a\naccount: [unclosed\n")
    code, _, err = run_cli("init", "mrcr-1m", "--facts", bad)
    assert code == 2 and str(bad) in err and "Traceback" not in err


def test_existing_output_is_kept_and_templates_untouched(run_cli, tmp_path):
    before = hashlib.sha256(MRCR_TEMPLATE.read_bytes()).hexdigest()
    out = tmp_path / "out.yaml"
    out.write_text("keep: me\n")
    code, _, err = init(run_cli, tmp_path, "mrcr-128k", FP8_FACTS, FP8_MOE)
    assert code == 2 and "--force" in err
    assert out.read_text() == "keep: me\n"
    assert hashlib.sha256(MRCR_TEMPLATE.read_bytes()).hexdigest() == before


def test_stdout_json_carries_the_config_without_o(run_cli, tmp_path):
    code, out, _ = run_cli(
        "init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", write_facts(tmp_path, FP8_FACTS),
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    (config,) = doc["configs"]
    assert config["file"] == "mrcr_128k.yaml" and blanks(config["text"]) == []


def test_templates_are_read_from_the_skill_at_run_time(run_cli, tmp_path, monkeypatch):
    # scripts/evalkit exports EVALKIT_SKILL_DIR; init must follow that copy's templates.
    import shutil

    skill = tmp_path / "skill"
    shutil.copytree(Path(__file__).parents[1] / "recipes", skill / "recipes")
    template = skill / "recipes/examples/gym/example_mrcr.yaml"
    template.write_text(template.read_text() + "\n# marker: this copy of the template\n")
    monkeypatch.setenv("EVALKIT_SKILL_DIR", str(skill))
    code, out, _ = init(run_cli, tmp_path, "mrcr-128k", FP8_FACTS, FP8_MOE)
    assert code == 0
    assert "# marker: this copy of the template" in out.read_text()


def test_aa_for_an_instruct_model_leaves_gdpval_out(run_cli, tmp_path):
    facts = {k: v for k, v in AA_FACTS.items() if not k.startswith("gdpval_")}
    facts["thinking"] = False
    del facts["reasoning_parser"]
    code, out, stderr = init(run_cli, tmp_path, "aa", facts, FP8_MOE, "aa")
    assert code == 0, stderr
    assert "GDPVal left out" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["aa.yaml", "tau3_banking.yaml"]
    for path in out.iterdir():
        assert errors(path, FP8_MOE) == [], path.name  # NEL501: tags equal the params
        data = yaml.safe_load(path.read_text())
        adapter = data["evaluation"]["nemo_evaluator_config"]["target"]["api_endpoint"]
        assert adapter["adapter_config"]["process_reasoning_traces"] is False
        added = adapter["adapter_config"].get("params_to_add") or {}
        assert "chat_template_kwargs" not in added


def test_json_names_each_derived_value_and_its_source(run_cli, tmp_path):
    code, out, _ = run_cli(
        "init", "mrcr-1m", "--checkpoint", NVFP4_HYBRID, "--facts",
        write_facts(tmp_path, NVFP4_FACTS), "-o", tmp_path / "m.yaml", "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    (derived,) = doc["derived"]
    assert derived["kv_cache_dtype"]["value"] == "auto"
    assert derived["mrcr_variant"]["value"] == "config_n3_1m.yaml"
    assert derived["long_max_model_len_override"]["value"] is True
    assert all(item["source"] for k, item in derived.items() if k != "file")
    assert doc["written"] == [str(tmp_path / "m.yaml")]


def test_the_context_fact_reaches_sizing_so_no_card_warning_is_left(run_cli, tmp_path):
    # The golden shape: config.json 262144, card 1M. With the card's context as a fact,
    # init serves 1,100,000 with the override and has nothing left to ask.
    facts = {**NVFP4_FACTS, "context": 1048576}
    code, out, stderr = init(run_cli, tmp_path, "mrcr", facts, NVFP4_HYBRID)
    assert code == 0, stderr
    assert "--context N" not in stderr and "Confirm the model card" not in stderr
    assert "config_n3_1m.yaml" in out.read_text()
    above_info = {f.rule for f in findings(out, NVFP4_HYBRID, 1048576) if f.severity != "info"}
    assert above_info <= {"NEL104"}  # only variables of the launching shell remain


# -- Tau3-Banking, and Tau2 only by name ----------------------------------------------------

TAU3_FACTS = {**NVFP4_FACTS, "tool_call_parser": "qwen3_coder"}


def _tau3(out: Path) -> dict:
    return yaml.safe_load(out.read_text())


@pytest.mark.parametrize(
    ("context", "served"),
    [(None, 262144), (1048576, 1048576)],  # config.json's 262144, or the card's figure
)
def test_tau3_banking_serves_the_full_context_with_tool_calling(run_cli, tmp_path, context, served):
    facts = dict(TAU3_FACTS, **({"context": context} if context else {}))
    code, out, stderr = init(run_cli, tmp_path, "tau3-banking", facts, NVFP4_HYBRID)
    assert code == 0, stderr
    assert blanks(out.read_text()) == []
    assert errors(out, NVFP4_HYBRID, context) == []
    data = _tau3(out)
    assert command_flag(out.read_text(), "--max-model-len") == str(served)
    assert "max_model_len" not in data["deployment"]  # the command carries it now
    assert data["deployment"]["tool_call_parser"] == "qwen3_coder"
    command = data["deployment"]["command"].split()
    assert "--enable-auto-tool-choice" in command
    long_ok = data["deployment"].get("env_vars", {}).get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    assert (long_ok == "lit:1") == (served > 262144)
    gym = data["evaluation"]["nemo_evaluator_config"]["config"]["params"]["extra"]["nemo_gym"]
    assert gym["install_on_the_fly"]["commit"] == TAU3_PIN
    assert data["evaluation"]["tasks"][0]["container"] == TAU3_FACTS["gym_image"]
    assert "SUPERSEDED" not in out.read_text()


def test_tau3_banking_needs_the_tool_call_parser(run_cli, tmp_path):
    code, out, _ = run_cli(
        "init", "tau3-banking", "--facts", write_facts(tmp_path, NVFP4_FACTS),
        "--checkpoint", NVFP4_HYBRID, "--format", "json",
    )  # fmt: skip
    assert code == 1
    assert [m["name"] for m in json.loads(out)["missing"]] == ["tool_call_parser"]


def test_tau2_is_written_only_by_name_and_says_it_is_superseded(run_cli, tmp_path):
    code, out, _ = run_cli("init", "--list", "--format", "json")
    tasks = {t["name"]: t for t in json.loads(out)["tasks"]}
    assert "SUPERSEDED" in tasks["tau2"]["summary"]
    assert "Tau3-Banking" in tasks["aa"]["summary"]
    facts = dict(TAU3_FACTS, cpu_partition="cpu", tau2_url=AA_FACTS["tau2_url"])
    code, out, stderr = init(run_cli, tmp_path, "tau2", facts, NVFP4_HYBRID)
    assert code == 0, stderr
    text = out.read_text()
    assert "SUPERSEDED" in text.split("\ndefaults:")[0]
    assert "tau2_bench_telecom" in text
    assert errors(out, NVFP4_HYBRID) == []


def test_tau3_baseline_keeps_the_candidates_length_and_parsers(run_cli, tmp_path):
    code, cand, stderr = init(run_cli, tmp_path, "tau3-banking", TAU3_FACTS, NVFP4_HYBRID)
    assert code == 0, stderr
    base = tmp_path / "base.yaml"
    code, _, stderr = run_cli(
        "init", "--baseline-of", cand, "--checkpoint", FP8_MOE_BF16,
        "--set", "checkpoint_path=/lustre/models/base", "--set", "served_model_name=base",
        "--set", "gpu_mem_gib=141", "-o", base,
    )  # fmt: skip
    assert code == 0, stderr
    for flag in ("--max-model-len", "--tool-call-parser", "--reasoning-parser"):
        assert command_flag(base.read_text(), flag) == command_flag(cand.read_text(), flag)
