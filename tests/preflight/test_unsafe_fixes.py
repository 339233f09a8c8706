"""`preflight --fix --unsafe-fixes` and the migrations of 0.1.x-era configs (issue 33).

As in ruff, a fix that chooses behaviour the file does not state runs only on request and
says what it chose and why. The launcher's verdict on the migrated corpus is asserted in
test_corpus_public.py (real 0.2.6 dry-run); here: the flag, the printed choice, the
data each fix reads, and the safe moves of 0.1.x `overrides` maps.
"""

from __future__ import annotations

import json

import pytest
import yaml

from evalkit.cli import main
from evalkit.config import load_config
from evalkit.config.tasks import refusal
from evalkit.preflight.fixes import all_fixers, unsafe_fixers
from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.fixes.nel009_era_harness import era_resolutions
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV, FIXTURES

GPQA = FIXTURES / "NEL009" / "fail" / "ambiguous_gpqa.yaml"

OLD_LOCAL = """\
defaults:
  - execution: local
  - deployment: none
  - _self_
execution:
  output_dir: /data/results
target:
  api_endpoint:
    model_id: vendor/small-instruct
    url: https://api.example.com/v1/chat/completions
    api_key_name: HF_TOKEN
evaluation:
  overrides:  # every task
    config.params.request_timeout: 1800
    target.api_endpoint.adapter_config.use_reasoning: false
  tasks:
    - name: simple_evals.mmlu
      overrides:
        config.params.temperature: 0.6
        config.params.extra.n_samples: 5
"""

MULTI = """\
defaults:
  - execution: slurm/default
  - deployment: vllm
  - _self_
execution:
  hostname: login.example.org
  account: acct
  output_dir: /lustre/out
  num_nodes: 2
deployment:
  multiple_instances: {value}
  checkpoint_path: /lustre/ckpt
  served_model_name: m
evaluation:
  tasks:
    - name: simple_evals.mmlu
"""


def _fix(text: str, path, unsafe: bool):
    return fix_text(text, str(path), Options(env=FIXTURE_ENV, unsafe=unsafe))


def test_the_era_fix_runs_only_under_unsafe_fixes():
    text = GPQA.read_text()
    safe = _fix(text, GPQA, unsafe=False)
    assert "NEL009" not in {f.rule for f in safe.fixed}
    unsafe = _fix(text, GPQA, unsafe=True)
    (step,) = [f for f in unsafe.fixed if f.rule == "NEL009"]
    assert "simple_evals.gpqa_diamond" in step.after
    assert "0.1." in step.note and "codec.gpqa_diamond" in step.note  # choice and reason
    assert not [f for f in unsafe.remaining if f.rule == "NEL009"]


def test_cli_prints_each_unsafe_choice(tmp_path, capsys):
    config = tmp_path / "old.yaml"
    config.write_text(GPQA.read_text())
    main(["preflight", "--diff", "--unsafe-fixes", str(config)])
    err = capsys.readouterr().err
    assert "unsafe fix: gpqa_diamond -> simple_evals.gpqa_diamond" in err
    assert config.read_text() == GPQA.read_text()  # --diff writes nothing
    main(["preflight", "--fix", "--unsafe-fixes", "--format", "json", str(config)])
    fixed = json.loads(capsys.readouterr().out)["fixed"]
    assert any(f["rule"] == "NEL009" and "note" in f for f in fixed)


def test_unsafe_fixes_without_fix_is_a_usage_error(tmp_path, capsys):
    config = tmp_path / "old.yaml"
    config.write_text(GPQA.read_text())
    assert main(["preflight", "--unsafe-fixes", str(config)]) == 2
    assert "--unsafe-fixes" in capsys.readouterr().err


def test_era_data_names_only_real_choices():
    """Each name is one 0.2.6 stops on, and the recorded harness is one of its candidates."""
    names = era_resolutions()
    assert {"ifeval", "gpqa_diamond", "mgsm"} <= set(names)
    assert "mmlu_pro" not in names  # two harnesses had it in every sampled 0.1.x release
    for name, entry in names.items():
        found = refusal(name, None)
        assert found is not None and entry["qualified"] in found.choices, name
        assert entry["versions"] and all(v.startswith("0.1.") for v in entry["versions"])


def test_every_unsafe_fixer_says_when_it_refuses_and_is_no_safe_one():
    for code, fixer in unsafe_fixers().items():
        assert fixer.unsafe and "Refuses" in fixer.doc and "Unsafe" in fixer.doc, code
        assert all_fixers().get(code) is not fixer


def test_overrides_maps_move_safely_and_keep_their_values(tmp_path):
    path = tmp_path / "old.yaml"
    out = _fix(OLD_LOCAL, path, unsafe=False)
    assert {f.rule for f in out.fixed} >= {"NEL004", "NEL005"}
    data = yaml.safe_load(out.text)
    evaluation = data["evaluation"]
    assert "overrides" not in evaluation and "overrides" not in evaluation["tasks"][0]
    shared = evaluation["nemo_evaluator_config"]
    assert shared["config"]["params"]["request_timeout"] == 1800
    assert shared["target"]["api_endpoint"]["adapter_config"]["use_reasoning"] is False
    own = evaluation["tasks"][0]["nemo_evaluator_config"]["config"]["params"]
    assert own == {"temperature": 0.6, "extra": {"n_samples": 5}}
    path.write_text(out.text)
    assert load_config(str(path)).get(("evaluation", "tasks", 0, "name")) == "simple_evals.mmlu"


@pytest.mark.parametrize("value,expected", [("true", 2), ("false", None)])
def test_multiple_instances_becomes_the_026_topology(tmp_path, value, expected):
    path = tmp_path / "multi.yaml"
    text = MULTI.format(value=value)
    assert not [f for f in _fix(text, path, unsafe=False).fixed if f.rule == "NEL005"]
    out = _fix(text, path, unsafe=True)
    (step,) = [f for f in out.fixed if f.rule == "NEL005"]
    assert step.note and "multiple_instances" in step.note
    data = yaml.safe_load(out.text)
    assert "multiple_instances" not in data["deployment"]
    assert data["execution"].get("num_instances") == expected


def test_the_export_group_of_execution_env_vars_moves_to_export(tmp_path):
    """0.1.x's `execution.env_vars.export` is what 0.2.6 reads as `export.env_vars`."""
    text = (
        OLD_LOCAL.replace(
            "  output_dir: /data/results\n",
            "  output_dir: /data/results\n"
            "  env_vars:\n    export:\n      MLFLOW_TRACKING_URI: host:URI\n",
        )
        + "export:\n  mlflow:\n    tracking_uri: http://mlflow.example.com:5000\n"
    )
    data = yaml.safe_load(_fix(text, tmp_path / "x.yaml", unsafe=False).text)
    assert "env_vars" not in data["execution"]
    assert data["export"]["env_vars"] == {"MLFLOW_TRACKING_URI": "host:URI"}


def test_fix_alone_says_how_many_unsafe_fixes_wait(tmp_path, capsys):
    config = tmp_path / "old.yaml"
    config.write_text(GPQA.read_text())
    main(["preflight", "--fix", "--format", "json", str(config)])
    assert json.loads(capsys.readouterr().out)["summary"]["unsafe_available"] == 1
    main(["preflight", "--fix", str(config)])
    assert "1 more fix(es) choose behaviour" in capsys.readouterr().out


def _wheel(path, name: str, text: str):
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"nemo_evaluator_launcher/resources/{name}", text)
    return path


def test_the_generator_reads_both_registry_formats(tmp_path):
    """tools/dev/gen_task_history.py on the two layouts the 0.1.x wheels use (a
    mapping.toml of harness tables; later a packaged all_tasks_irs.yaml), shapes as in
    nemo-evaluator-launcher 0.1.0 and 0.1.93."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "tools" / "dev" / "gen_task_history.py"
    spec = importlib.util.spec_from_file_location("gen_task_history", script)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    toml = (
        '[lm-evaluation-harness]\ncontainer = "x"\n'
        "[lm-evaluation-harness.tasks.chat.ifeval]\n[simple_evals.tasks.chat.mgsm]\n"
    )
    irs = (
        "tasks:\n- {name: ifeval, harness: codec}\n"
        "- {name: ifeval, harness: lm-evaluation-harness}\n"
    )
    old = gen.registry(_wheel(tmp_path / "old.whl", "mapping.toml", toml))
    new = gen.registry(_wheel(tmp_path / "new.whl", "all_tasks_irs.yaml", irs))
    assert old == {("lm-evaluation-harness", "ifeval"), ("simple_evals", "mgsm")}
    assert new == {("codec", "ifeval"), ("lm-evaluation-harness", "ifeval")}
    found = gen.resolutions({"0.1.0": tmp_path / "old.whl", "0.1.93": tmp_path / "new.whl"})
    assert found["ifeval"] == {"qualified": "lm-evaluation-harness.ifeval", "versions": ["0.1.0"]}
