"""Every nel 0.2.6 template under recipes/examples: the real dry-run with its `???` filled,
the rendered scripts, the bare template's refusal, and the template rules a file shows."""

from __future__ import annotations

import functools
import math
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from helpers.nel import blank_paths, dry_run

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "recipes" / "examples"
TEMPLATES = sorted(p for p in EXAMPLES.rglob("*.yaml") if "_next" not in p.name)
IDS = [str(p.relative_to(EXAMPLES)) for p in TEMPLATES]

PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>")
EXTRA_ENV = {"TAVILY_API_KEY": "tvly-dry-run-key"}

# Fill values by the last component of the blank's dotted path.
FILLS = {
    "hostname": "login.cluster.example.com",
    "account": "eval_account",
    "partition": "batch",
    "cpu_partition": "cpu",
    "output_dir": "/lustre/evals/output",
    "checkpoint_path": "/lustre/checkpoints/model-under-test",
    "served_model_name": "model-under-test",
    "parallelism": "64",
    "url": "https://judge.example.com/v1",
    "base_url": "https://judge.example.com/v1",
    "experiment_name": "evalkit-ci/model-under-test",
    "model": "model-under-test",
    "container": "registry.example.com/eval/nemo-gym:git-pinned",
    "image": "registry.example.com/vllm/vllm-openai:v0.26.0",
    "tool_call_parser": "hermes",
    "reasoning_parser": "qwen3",
    "kv_cache_dtype": "auto",
}
# Whole mappings left blank: filled with `++` and a Hydra dict.
MAPPING_FILLS = {
    "execution.mounts.evaluation": (
        "{/lustre/gdpval/sif:/gdpval/sif,/lustre/gdpval/refs:/gdpval_ref_files}"
    ),
    "execution.mounts.deployment": "{/lustre/hf-cache:/hf-cache}",
}


def fill_value(path: str) -> tuple[str, str]:
    """The override key and a plausible value for one `???` path."""
    if path in MAPPING_FILLS:
        return "++" + path, MAPPING_FILLS[path]
    leaf = path.rsplit(".", 1)[-1]
    if leaf in FILLS:
        return path, FILLS[leaf]
    if leaf.endswith(("_dir", "_path")):
        return path, "/lustre/evals/" + leaf
    if leaf.endswith(("_url", "_uri")):
        return path, "https://service.example.com/v1"
    if leaf.startswith(("num_", "max_")) or leaf.endswith(("_size", "_len")):
        return path, "8"
    return path, "filled-" + leaf.replace("_", "-")


def rendered_scripts(stdout: str) -> list[str]:
    """Each task's sbatch script, cut at the redacted-secrets listing that follows it."""
    scripts = []
    for part in re.split(r"^=+ Task \d+ =+$", stdout, flags=re.M)[1:]:
        start = part.find("#!/bin/bash")
        assert start >= 0, "no script body after a task header"
        body = re.split(
            r"^-+ Secrets \(redacted\)|^To submit jobs, run the executor", part[start:], flags=re.M
        )[0]
        scripts.append(body)
    return scripts


@pytest.fixture(scope="module")
def launcher_runs():
    """Filled and bare dry-runs of every template, run side by side (each takes seconds)."""
    jobs = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for config in TEMPLATES:
            overrides = dict(fill_value(p) for p in blank_paths(config))
            jobs[config, "filled"] = pool.submit(dry_run, config, overrides, EXTRA_ENV)
            jobs[config, "bare"] = pool.submit(dry_run, config, None, EXTRA_ENV)
        return {key: job.result() for key, job in jobs.items()}


@pytest.fixture(params=TEMPLATES, ids=IDS)
def filled_run(request, launcher_runs):
    return request.param, launcher_runs[request.param, "filled"]


def load(config: Path) -> dict:
    return yaml.safe_load(config.read_text())


def test_templates_found():
    names = {p.name for p in TEMPLATES}
    assert {"example_eval.yaml", "example_gdpval.yaml"} <= names


@pytest.mark.launcher
def test_filled_template_dry_run_passes(filled_run):
    config, result = filled_run
    assert result.returncode == 0, result.stderr[-3000:]
    scripts = rendered_scripts(result.stdout)
    tasks = load(config)["evaluation"]["tasks"]
    assert len(scripts) == len(tasks)


@pytest.mark.launcher
def test_rendered_scripts_parse_and_hold_no_placeholders(filled_run, tmp_path):
    _, result = filled_run
    for index, script in enumerate(rendered_scripts(result.stdout)):
        target = tmp_path / f"task{index}.sub"
        target.write_text(script)
        check = subprocess.run(["bash", "-n", str(target)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        assert not PLACEHOLDER.findall(script)
        assert "CHANGEME" not in script
        # The script echoes the unresolved template in comments; live lines hold no blank.
        live = [ln for ln in script.splitlines() if not ln.lstrip().startswith("#")]
        assert not [ln for ln in live if "???" in ln]


@pytest.mark.launcher
@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_bare_template_is_refused(config, launcher_runs):
    result = launcher_runs[config, "bare"]
    assert result.returncode != 0
    assert "Missing mandatory value" in result.stdout + result.stderr


# --- rules visible in the file itself (no launcher) ----------------------------------


@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_schema_line_points_at_the_schema(config):
    first = config.read_text().splitlines()[0]
    prefix = "# yaml-language-server: $schema="
    assert first.startswith(prefix)
    target = (config.parent / first[len(prefix) :]).resolve()
    assert target == (REPO / "schemas" / "nel-0.2.6-config.schema.json").resolve()


@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_blanks_are_question_marks_only(config):
    text = config.read_text()
    assert not PLACEHOLDER.findall(text)
    assert "CHANGEME" not in text
    assert blank_paths(config), "a template leaves the site-specific values blank"


def _command_flags(command: str) -> dict[str, str]:
    flags = dict(re.findall(r"--([a-z0-9-]+)(?:[ =]([^\s-][^\s]*))?", command))
    return flags


def _max_parallelism(cfg: dict) -> int | None:
    top = cfg["evaluation"]["nemo_evaluator_config"]["config"]["params"].get("parallelism")
    values = [top]
    for task in cfg["evaluation"]["tasks"]:
        params = (task.get("nemo_evaluator_config") or {}).get("config", {}).get("params", {})
        values.append(params.get("parallelism", top))
    if any(v == "???" for v in values):
        return None
    return max(int(v) for v in values if v is not None)


def _gym_concurrency(cfg: dict) -> int | None:
    text = yaml.safe_dump(cfg)
    found = re.search(r"stirrup_agent\.concurrency=(\d+)", text)
    return int(found.group(1)) if found else None


@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_execution_and_deployment_rules(config):
    cfg = load(config)
    text = config.read_text()
    execution = cfg["execution"]
    deployment = cfg["deployment"]
    assert "cluster" not in cfg
    assert "env_vars" not in execution
    assert execution["mounts"]["mount_home"] is False
    assert re.search(r"^\s+walltime: \"\d+:\d\d:\d\d\"", text, flags=re.M), "quote walltime"
    auto = execution.get("auto_export") or {}
    if "mlflow" in (auto.get("destinations") or []):
        assert "nemo-evaluator-launcher[all]==0.2.6" in auto.get("launcher_install_cmd", "")
        assert execution.get("cpu_partition") is not None
    assert not str(deployment["image"]).endswith(":latest")
    assert "extra_args" not in deployment
    command = deployment["command"]
    assert command.startswith("vllm serve /checkpoint")
    for needed in (
        "--served-model-name ${deployment.served_model_name}",
        "--host 0.0.0.0",
        "--port ${deployment.port}",
    ):
        assert needed in command
    if "gpu_memory_utilization" in command:
        assert "--gpu-memory-utilization ${deployment.gpu_memory_utilization}" in command
    flags = _command_flags(command)
    tp = int(flags.get("tensor-parallel-size", 1))
    dp = int(flags.get("data-parallel-size", 1))
    gres = str(execution.get("gres", "gpu:8"))
    assert gres == f"gpu:{tp * dp}", f"gres {gres} vs TP{tp} x DP{dp}"
    instances = int(execution.get("num_instances", 1))
    parallelism = _gym_concurrency(cfg) or _max_parallelism(cfg)
    if "max-num-seqs" in flags:
        assert parallelism is not None, "omit --max-num-seqs while parallelism is ???"
        assert int(flags["max-num-seqs"]) == math.ceil(parallelism / (dp * instances))


@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_evaluation_and_export_rules(config):
    cfg = load(config)
    evaluation = cfg["evaluation"]
    maps = [cfg.get("env_vars") or {}, cfg["deployment"].get("env_vars") or {}]
    maps.append(evaluation.get("env_vars") or {})
    maps += [t.get("env_vars") or {} for t in evaluation["tasks"]]
    for mapping in maps:
        for name, value in mapping.items():
            assert str(value).startswith(("host:", "lit:", "runtime:")), name
            if name == "NEL_INVOCATION_ID":
                assert mapping is maps[2] and value == "runtime:NEL_INVOCATION_ID"
    adapter = evaluation["nemo_evaluator_config"]["target"]["api_endpoint"]["adapter_config"]
    kwargs = (adapter.get("params_to_add") or {}).get("chat_template_kwargs") or {}
    assert len({"thinking", "enable_thinking"} & set(kwargs)) <= 1
    assert "use_reasoning" not in adapter
    export = cfg.get("export", {}).get("mlflow")
    if export:
        dumped = yaml.safe_dump(export)
        assert "${deployment." not in dumped and "${evaluation." not in dumped
        params = evaluation["nemo_evaluator_config"]["config"]["params"]
        tags = export.get("tags") or {}
        for key in ("temperature", "top_p", "max_new_tokens"):
            if key in tags:
                assert isinstance(tags[key], str), key
                assert tags[key] == str(params.get(key)), key


def _gym_blocks(cfg: dict) -> list[dict]:
    blocks = []
    for task in cfg["evaluation"]["tasks"]:
        extra = (task.get("nemo_evaluator_config") or {}).get("config", {}).get("params", {})
        gym = (extra.get("extra") or {}).get("nemo_gym")
        if gym:
            blocks.append(gym)
    return blocks


@pytest.mark.parametrize("config", TEMPLATES, ids=IDS)
def test_gym_bootstrap_block(config, tmp_path):
    cfg = load(config)
    for gym in _gym_blocks(cfg):
        assert len(cfg["evaluation"]["tasks"]) == 1
        command = gym["command"]
        assert "${" not in command, "OmegaConf reads ${...} in the command block"
        assert "<<'GYM_RUN_EOF'" in command and "setsid --wait" in command
        assert not re.search(r"ray==\d", command), "derive ray from the image"
        if "$HF_TOKEN" in gym.get("data_prep_params", ""):
            assert "set +x" in command  # the prepare call carries the token
        for key in ("data_prep_params", "collect_rollout_params", "common_params"):
            assert "#" not in gym.get(key, ""), f"'#' inside folded {key}"
        pin = gym["install_on_the_fly"]["commit"]
        assert re.fullmatch(r"[0-9a-f]{40}", pin)
        script = re.sub(r"\{\{[^}]*\}\}", "RENDERED", command)
        target = tmp_path / "gym_command.sh"
        target.write_text(script)
        check = subprocess.run(["bash", "-n", str(target)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr


# --- task recipes agree with the templates and the launcher's task list ---------------

TASKS = REPO / "recipes" / "tasks"
FENCED_YAML = re.compile(r"^```yaml\n(.*?)^```", flags=re.M | re.S)


def _first_fragment(recipe: Path) -> list:
    block = FENCED_YAML.search(recipe.read_text())
    assert block, f"{recipe.name}: no yaml fragment"
    return yaml.safe_load(block.group(1))


@functools.cache
def _launcher_task_names() -> set[str]:
    import nemo_evaluator_launcher

    irs = Path(nemo_evaluator_launcher.__file__).parent / "resources" / "all_tasks_irs.yaml"
    tasks = yaml.load(irs.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {t["name"] for t in tasks["tasks"]}


AA_RECIPES = sorted((TASKS / "aa").glob("*.md"))


@pytest.mark.parametrize("recipe", AA_RECIPES, ids=[p.stem for p in AA_RECIPES])
def test_aa_fragment_matches_its_template(recipe):
    (fragment,) = _first_fragment(recipe)
    template = "example_eval_tau2.yaml" if fragment["name"] == "tau2_bench_telecom" else None
    config = load(EXAMPLES / (template or "example_eval.yaml"))
    entries = {t["name"]: t for t in config["evaluation"]["tasks"]}
    assert entries.get(fragment["name"]) == fragment


OPTIONAL_RECIPES = sorted(TASKS.glob("*.md"))


@pytest.mark.parametrize(
    "recipe", AA_RECIPES + OPTIONAL_RECIPES, ids=[p.stem for p in AA_RECIPES + OPTIONAL_RECIPES]
)
def test_fragment_task_is_in_the_launcher_task_list(recipe):
    (fragment,) = _first_fragment(recipe)
    assert fragment["name"].rsplit(".", 1)[-1] in _launcher_task_names()


def test_optional_tasks_stay_out_of_the_aa_template():
    names = {t["name"] for t in load(EXAMPLES / "example_eval.yaml")["evaluation"]["tasks"]}
    for recipe in OPTIONAL_RECIPES:
        (fragment,) = _first_fragment(recipe)
        assert fragment["name"] not in names
    assert not any("mrcr" in n or n == "nemo_gym" for n in names)
