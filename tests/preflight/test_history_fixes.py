"""The unsafe fixes for refusals whose repair the launcher's own code or data decides
(issue 40), each proved by the real nel 0.2.6: refused as written, accepted after
`--fix --unsafe-fixes`, and a second pass changes nothing.

The configs are written here; each carries one refusal class met in the public corpus
(tests/preflight/corpus_public, corpus_history; tests/bench/bench_reach.py measures it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from evalkit.config.task_history import gone, history
from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.fixes.nel007_group_option import successor
from evalkit.preflight.fixes.nel101_placeholder_secret import placeholder
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV

LOCAL = """\
defaults:
  - execution: local
  - deployment: {deployment}
  - _self_
execution:
  output_dir: {out}
{extra}"""
ENDPOINT = """\
target:
  api_endpoint:
    model_id: vendor/small-instruct
    url: https://api.example.com/v1/chat/completions
{key}evaluation:
  tasks:
{tasks}"""


def _local(out, tasks="    - name: simple_evals.mmlu\n", key="", extra="") -> str:
    body = ENDPOINT.format(key=key, tasks=tasks)
    return LOCAL.format(deployment="none", out=out, extra=extra + body)


VLLM_PARALLEL = """\
defaults:
  - execution: local
  - deployment: vllm
  - _self_
execution:
  output_dir: {out}
  mode: parallel
deployment:
  checkpoint_path: /models/small
  served_model_name: small
evaluation:
  env_vars:
    HF_TOKEN: host:HF_TOKEN
  tasks:
    - name: simple_evals.mmlu
"""
SLURM_GROUP = """\
defaults:
  - execution: slurm
  - deployment: none
  - _self_
execution:
  hostname: login.example.org
  account: acct
  output_dir: /lustre/out
target:
  api_endpoint:
    model_id: vendor/small-instruct
    url: https://api.example.com/v1/chat/completions
    api_key_name: HF_TOKEN
evaluation:
  tasks:
    - name: simple_evals.mmlu
"""


def _fix(text: str, path: Path, unsafe: bool = True):
    return fix_text(text, str(path), Options(env=FIXTURE_ENV, unsafe=unsafe))


def _notes(outcome) -> list[str]:
    return [f.note for f in outcome.fixed if f.note]


def _refused_then_accepted(tmp_path, text: str, refusal: str):
    """The launcher refuses `text` with `refusal`, accepts its fix, and a second pass
    changes nothing. Returns the fix's outcome."""
    from helpers.nel import dry_run

    path = tmp_path / "config.yaml"
    path.write_text(text)
    before = dry_run(path, env=FIXTURE_ENV)
    assert before.returncode != 0 and refusal in before.error, before.error
    outcome = _fix(text, path)
    path.write_text(outcome.text)
    after = dry_run(path, env=FIXTURE_ENV)
    assert after.returncode == 0, after.error
    again = _fix(outcome.text, path)
    assert again.text == outcome.text and not again.fixed
    assert not [f for f in outcome.remaining if f.severity == "error"]
    return outcome


@pytest.mark.launcher
def test_local_first_task_without_env_gets_the_workaround(tmp_path):
    text = _local(tmp_path / "out")
    outcome = _refused_then_accepted(tmp_path, text, "export_reexport_cmd")
    (note,) = _notes(outcome)
    assert "workaround" in note and "executor.py:235,270" in note
    assert "NEL026_LOCAL_ENV_WORKAROUND: lit:1" in outcome.text
    assert "# workaround: nel 0.2.6" in outcome.text  # the file says why
    assert not _fix(text, tmp_path / "x.yaml", unsafe=False).fixed  # unsafe only


@pytest.mark.launcher
def test_parallel_beside_a_deployment_becomes_sequential(tmp_path):
    text = VLLM_PARALLEL.format(out=tmp_path / "out")
    outcome = _refused_then_accepted(tmp_path, text, "Execution mode 'parallel'")
    (note,) = _notes(outcome)
    assert "sequential" in note and "executor.py:116-121" in note
    assert "mode: sequential" in outcome.text


@pytest.mark.launcher
def test_a_group_directory_becomes_its_one_option(tmp_path):
    outcome = _refused_then_accepted(tmp_path, SLURM_GROUP, "execution/slurm")
    (note,) = _notes(outcome)
    assert "slurm -> slurm/default" in note
    assert "- execution: slurm/default" in outcome.text


@pytest.mark.launcher
@pytest.mark.parametrize(
    "name,expected",
    [
        ("mbpp", "name: bigcode-evaluation-harness.mbpp-chat"),  # the chat URL decides
        ("mmlu_pro", "name: simple_evals.mmlu_pro"),  # the only chat candidate
        ("aa_scicode", "container: nvcr.io/nvidia/eval-factory/scicode:25.10"),  # last image
    ],
)
def test_task_names_resolve_through_older_registries(tmp_path, name, expected):
    text = _local(tmp_path / "out", f"    - name: {name}\n", "    api_key_name: HF_TOKEN\n")
    outcome = _refused_then_accepted(tmp_path, text, name)
    assert expected in outcome.text
    (note,) = _notes(outcome)
    assert name in note and ("0.2.6" in note)


def test_an_ambiguous_name_with_no_deciding_fact_keeps_its_candidates(tmp_path):
    text = VLLM_PARALLEL.format(out=tmp_path / "o").replace("simple_evals.mmlu", "mmlu_pro")
    outcome = _fix(text, tmp_path / "c.yaml")
    assert "name: mmlu_pro" in outcome.text  # vLLM serves both endpoint types: no choice
    (left,) = [f for f in outcome.remaining if f.rule == "NEL009"]
    assert "lm-evaluation-harness.mmlu_pro" in left.fix and "simple_evals.mmlu_pro" in left.fix


@pytest.mark.launcher
def test_words_and_placeholders_in_env_values(tmp_path):
    extra = "env_vars:\n  TOKENIZERS_PARALLELISM: 'false'\n  HF_TOKEN: hf_your_token\n"
    text = _local(tmp_path / "out", extra=extra)
    outcome = _refused_then_accepted(tmp_path, text, "must have an explicit prefix")
    assert "TOKENIZERS_PARALLELISM: lit:false" in outcome.text
    assert "HF_TOKEN: host:HF_TOKEN" in outcome.text
    notes = " ".join(_notes(outcome))
    assert "export HF_TOKEN" in notes and "hf_your_token" not in notes  # value not shown
    safe = _fix(text, tmp_path / "x.yaml", unsafe=False).text
    assert "host:false" in safe and "hf_your_token" in safe  # as nel-migrate-config reads it


def test_an_upper_case_host_variable_is_left_for_the_user(tmp_path):
    text = _local(tmp_path / "o", extra="env_vars:\n  HF_HOME: host:HF_HOME\n")
    outcome = _fix(text, tmp_path / "c.yaml")
    assert "host:HF_HOME" in outcome.text
    assert any(f.rule == "NEL104" for f in outcome.remaining)


def test_group_successors_come_from_the_bundled_options():
    assert successor("execution", "slurm") == "slurm/default"
    assert successor("execution", "lepton") == "lepton/default"
    assert successor("deployment", "vllm-ray") == "vllm_ray"
    assert successor("deployment", "vllm") is None  # already bundled
    assert successor("deployment", "tgi") is None  # nothing to choose from
    # the same name in another case or with `-`: Hydra's lookup is exact, the fix is not
    assert successor("deployment", "SGLang") == "sglang"
    assert successor("deployment", "VLLM") == "vllm"


def test_placeholder_shapes():
    assert placeholder("hf_your_token") and placeholder("<YOUR_KEY>") and placeholder("xxx")
    assert not placeholder("hf_abcdef123") and not placeholder("HF_TOKEN")


def test_the_cited_launcher_lines_are_the_installed_ones():
    """The source lines the notes cite, read from the installed nel 0.2.6."""
    spec = importlib.util.find_spec("nemo_evaluator_launcher")
    if spec is None:
        pytest.skip("nemo-evaluator-launcher is not installed")
    executor = Path(spec.origin).parent / "executors" / "local" / "executor.py"
    lines = executor.read_text().splitlines()
    assert "export_reexport_cmd = build_reexport_commands" in lines[234]
    assert '"export_reexport_cmd": export_reexport_cmd' in lines[269]
    assert 'execution_mode = cfg.execution.get("mode", "parallel")' in lines[115]
    assert "not supported with deployment type" in lines[119]


def test_the_history_data_agrees_with_the_026_catalog():
    from evalkit.config.tasks import catalog

    known = {t for _, t in catalog().pairs}
    assert history()["current"] == "0.2.6"
    for name, entry in history()["gone"].items():
        assert name not in known, name
        for seen in entry["harnesses"].values():
            for qualified in (q for qs in seen["successors"].values() for q in qs):
                assert tuple(qualified.split(".", 1)) in catalog().pairs, qualified
    assert gone("mbpp")["bigcode-evaluation-harness"]["successors"]["chat"] == [
        "bigcode-evaluation-harness.mbpp-chat"
    ]


def test_the_generator_reads_successors_from_the_irs(tmp_path):
    """tools/dev/gen_task_history.py's history(): a name gone from the current registry,
    the last image it ran in, and the current tasks running the same container task."""
    import yaml

    script = Path(__file__).resolve().parents[2] / "tools" / "dev" / "gen_task_history.py"
    spec = importlib.util.spec_from_file_location("gen_task_history", script)
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_task_history", gen)
    spec.loader.exec_module(gen)

    def wheel(name, irs):
        import zipfile

        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr(gen.RESOURCES + "all_tasks_irs.yaml", yaml.safe_dump(irs))
        return path

    def task(name, inner, types):
        config = {"params": {"task": inner}, "supported_endpoint_types": types}
        return {"name": name, "harness": "bigcode", "defaults": {"config": config}}

    old_tasks = [task("mbpp", "mbpp", ["chat", "completions"])]
    new_tasks = [
        task("mbpp-chat", "mbpp", ["chat"]),
        task("mbpp-completions", "mbpp", ["completions"]),
    ]
    old = wheel(
        "old.whl", {"harnesses": [{"name": "bigcode", "container": "img:1"}], "tasks": old_tasks}
    )
    new = wheel(
        "new.whl", {"harnesses": [{"name": "bigcode", "container": "img:2"}], "tasks": new_tasks}
    )
    found = gen.history({"0.1.0": old}, new)["gone"]["mbpp"]["harnesses"]["bigcode"]
    assert found["container"] == "img:1" and found["versions"] == ["0.1.0"]
    assert found["successors"] == {
        "chat": ["bigcode.mbpp-chat"],
        "completions": ["bigcode.mbpp-completions"],
    }


@pytest.mark.launcher
def test_a_task_config_key_becomes_nemo_evaluator_config(tmp_path):
    """0.2.3 read a task's `config` as its nemo_evaluator_config; 0.2.6 refuses the key.
    A safe fix (the older launcher's own reading)."""
    tasks = (
        "    - name: simple_evals.mmlu\n"
        "      config:\n        config:\n          params:\n            temperature: 0.6\n"
    )
    text = _local(tmp_path / "out", tasks, "    api_key_name: HF_TOKEN\n")
    outcome = _refused_then_accepted(tmp_path, text, "Invalid 'evaluation' config")
    assert [f.rule for f in outcome.fixed] == ["NEL004"] and not _notes(outcome)
    assert "      nemo_evaluator_config:\n        config:" in outcome.text
