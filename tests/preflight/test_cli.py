"""`evalkit preflight` end to end: exit codes, formats, overrides, unreadable input."""

from __future__ import annotations

import json

import pytest

from helpers.cli import run_evalkit

from .conftest import FIXTURE_ENV, FIXTURES

BASE = FIXTURES / "_base"


@pytest.fixture(autouse=True)
def fixed_env(monkeypatch, tmp_path):
    for key, value in FIXTURE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_clean_config_exits_0(run_cli):
    code, out, err = run_cli("preflight", BASE / "mrcr.yaml")
    assert code == 0, out
    assert "0 error(s)" in out


def test_errors_exit_1_with_line_and_fix(run_cli):
    cfg = FIXTURES / "NEL202/fail/unquoted_ten_hours.yaml"
    code, out, _ = run_cli("preflight", cfg)
    assert code == 1
    expected = cfg.read_text().splitlines().index("  walltime: 10:00:00") + 1
    line = next(x for x in out.splitlines() if " NEL202 " in x)
    assert line.strip().startswith(f"{expected}: error NEL202 [execution.walltime]")
    assert 'fix: quote it: walltime: "10:00:00"' in out


def test_all_blanks_listed_at_once(run_cli, tmp_path):
    cfg = tmp_path / "blank.yaml"
    text = (BASE / "generic.yaml").read_text()
    text = text.replace("account: eval-team", "account: ???").replace(
        "served_model_name: model-fp8", "served_model_name: ???"
    )
    cfg.write_text(text)
    code, out, _ = run_cli("preflight", cfg, "--format", "json")
    doc = json.loads(out)
    blanks = {f["path"] for f in doc["findings"] if f["rule"] == "NEL002"}
    assert blanks == {"execution.account", "deployment.served_model_name"}
    assert code == 1
    code, out, _ = run_cli("preflight", cfg, "--template")
    assert code == 0 and "info NEL002" in out


def test_overrides_apply_like_nel(run_cli):
    cfg = FIXTURES / "NEL202/fail/unquoted_ten_hours.yaml"
    code, _, _ = run_cli("preflight", cfg, "-o", "execution.walltime=10:00:00")
    assert code == 0
    code, _, err = run_cli("preflight", cfg, "-o", "execution.nonexistent=1")
    assert code == 2 and "Could not override 'execution.nonexistent'" in err
    code, _, _ = run_cli("preflight", cfg, "-o", "++execution.walltime=10:00:00")
    assert code == 0
    code, out, _ = run_cli("preflight", BASE / "generic.yaml", "-o", "deployment=vllmm")
    assert code == 1 and "NEL007" in out


def test_task_name_shorthand_override(run_cli):
    code, out, _ = run_cli(
        "preflight",
        BASE / "generic.yaml",
        "--format",
        "json",
        "-o",
        "++evaluation.tasks.ns_gpqa.env_vars.LOG_LEVEL=WARNING",
    )
    doc = json.loads(out)
    hit = [f for f in doc["findings"] if f["rule"] == "NEL101"]
    assert hit and hit[0]["path"] == "evaluation.tasks[0].env_vars.LOG_LEVEL"
    assert "(value set by -o" in hit[0]["message"]


def test_json_shape(run_cli):
    code, out, _ = run_cli(
        "preflight", FIXTURES / "NEL201/fail/inherited_true.yaml", "--format", "json"
    )
    doc = json.loads(out)
    assert set(doc) == {"findings", "summary", "suppressed"}
    assert doc["summary"]["warnings"] >= 1  # NEL201 is a warning
    assert doc["summary"]["suppressed"] == 0 and doc["suppressed"] == {}
    assert set(doc["findings"][0]) == {"rule", "severity", "message", "path", "file", "line", "fix"}


def test_sarif_shape(run_cli):
    code, out, _ = run_cli(
        "preflight", FIXTURES / "NEL402/fail/hash_in_folded.yaml", "--format", "sarif"
    )
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    result = next(r for r in run["results"] if r["ruleId"] == "NEL402")
    assert result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    text = (FIXTURES / "NEL402/fail/hash_in_folded.yaml").read_text().splitlines()
    assert text[region["startLine"] - 1].strip().startswith("# canary")
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "NEL402"


def test_strict_fails_on_warnings(run_cli):
    cfg = FIXTURES / "NEL303/fail/bare_envelope.yaml"
    assert run_cli("preflight", cfg)[0] == 0
    assert run_cli("preflight", cfg, "--strict")[0] == 1


def test_interpolation_line_inside_block_scalar(run_cli):
    cfg = FIXTURES / "NEL001/fail/brace_in_block_comment.yaml"
    code, out, _ = run_cli("preflight", cfg, "--format", "json")
    hit = next(f for f in json.loads(out)["findings"] if f["rule"] == "NEL001")
    line = cfg.read_text().splitlines()[hit["line"] - 1]
    assert "${HOME}" in line
    assert hit["path"].endswith("extra.nemo_gym.command")
    assert "Interpolation key 'HOME' not found" in hit["message"]


def test_checkpoint_and_pair(run_cli):
    cfg = FIXTURES / "NEL606/fail/auto_map_no_flag.yaml"
    code, out, _ = run_cli("preflight", cfg, "--checkpoint", FIXTURES / "_checkpoints/moe_1m_fp8kv")
    assert code == 1 and "NEL606" in out
    code, out, _ = run_cli(
        "preflight", "--pair", BASE / "mrcr.yaml", FIXTURES / "NEL701/fail/variant_differs.yaml"
    )
    assert code == 1 and "MRCR variant differs" in out


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"execution: [unclosed\n", "malformed YAML"),
        (b"\x00\x01binary", "binary data"),
        (b"", "empty YAML document"),
        (b"- a\n- b\n", "top level must be a mapping"),
        (b"a: &x [*x]\n", "recursive YAML alias"),
    ],
)
def test_unreadable_input_exits_2(run_cli, tmp_path, content, needle):
    cfg = tmp_path / "bad.yaml"
    cfg.write_bytes(content)
    code, out, err = run_cli("preflight", cfg)
    assert code == 2, (out, err)
    assert err.startswith("evalkit preflight: error: ") and needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# A model's config.json (the shape of a Hugging Face Llama config; a guess at its keys,
# enough for the test) and a YAML file of another kind: no nel section in either.
HF_CONFIG = b'{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096}\n'


@pytest.mark.parametrize(
    ("name", "content", "hint"),
    [
        ("config.json", HF_CONFIG, "pass its directory as --checkpoint DIR"),
        ("ci.yaml", b"jobs:\n  test:\n    runs-on: ubuntu-latest\n", None),
        ("empty.yaml", b"{}\n", None),
    ],
)
@pytest.mark.parametrize("extra", [[], ["--fix", "--diff"]])
def test_not_a_nel_config_is_one_line_exit_2(run_cli, tmp_path, name, content, hint, extra):
    # issue 25: a model's config.json got 37 NEL010/NEL004 findings, then one NEL012
    # saying it "resolves into" a nel config; it is bad input, said once
    cfg = tmp_path / name
    cfg.write_bytes(content)
    code, out, err = run_cli("preflight", cfg, *extra)
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert f"{cfg}: not a nel config: it has none of nel's top-level keys" in line
    assert (hint in line) if hint else "--checkpoint" not in line
    assert cfg.read_bytes() == content


def test_missing_file_and_no_args(run_cli, tmp_path):
    code, _, err = run_cli("preflight", tmp_path / "nope.yaml")
    assert code == 2 and "no such file" in err
    code, _, err = run_cli("preflight")
    assert code == 2


def test_help_is_fast_and_lists_examples():
    proc = run_evalkit("preflight", "--help")
    assert proc.returncode == 0
    assert "evalkit preflight" in proc.stdout and "--with-launcher" in proc.stdout


def test_input_never_modified(run_cli, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text((FIXTURES / "NEL201/fail/explicit_true.yaml").read_text())
    before = cfg.read_bytes()
    run_cli("preflight", cfg, "-o", "execution.mounts.mount_home=false")
    assert cfg.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


@pytest.mark.launcher
def test_with_launcher_reports_one_finding_without_traceback(run_cli, monkeypatch):
    from helpers.nel import DRY_RUN_ENV, nel_executable

    cfg = FIXTURES / "NEL801/fail/bad_group.yaml"
    for key, value in DRY_RUN_ENV.items():
        monkeypatch.setenv(key, value)
    code, out, err = run_cli("preflight", cfg, "--with-launcher", "--nel", nel_executable())
    assert code == 1
    launcher_lines = [x for x in out.splitlines() if " NEL801 " in x]
    assert len(launcher_lines) == 1
    assert "MissingConfigException" in launcher_lines[0]
    assert "Could not find 'deployment/vllmm'" in launcher_lines[0]
    assert "Traceback" not in out and "NEL001" not in out


def test_blank_fix_is_an_override_nel_accepts(run_cli, repo_root):
    """nel's -o grammar rejects `tasks[0]`; the fix must give the dotted index form."""
    template = repo_root / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
    code, out, _ = run_cli("preflight", "--template", template, "--format", "json")
    fixes = [f["fix"] for f in json.loads(out)["findings"] if f["rule"] == "NEL002"]
    assert "set it in the file or pass -o evaluation.tasks.0.container=..." in fixes
    assert not any("[" in fix for fix in fixes)
    code, out, _ = run_cli(
        "preflight",
        "--template",
        template,
        "-o",
        "evaluation.tasks.0.container=reg/gym:1",
        "--format",
        "json",
    )
    paths = [f["path"] for f in json.loads(out)["findings"] if f["rule"] == "NEL002"]
    assert "evaluation.tasks[0].container" not in paths
