"""Hostile facts for `evalkit init` (issue 22, items 3 and 4) and preflight NEL307.

A fact is pasted into the launcher's sbatch script (mounts, #SBATCH lines, the vllm
command), so init checks each by kind before it writes anything, and writes every string
fact so that OmegaConf (the launcher's reader) reads back exactly the given text. Oracles:
real OmegaConf, the real nel 0.2.6 dry-run (tests marked `launcher`), preflight's NEL307.
The checkpoint fixture is tests/fixtures/init/qwen3-235b-a22b-fp8 (its README names it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf

from evalkit.config.textedit import yaml_scalar
from evalkit.init.factkinds import STRING_KINDS, FactError
from evalkit.init.facts import FACTS, check_value, read_facts
from evalkit.preflight.runner import Options, check_file
from helpers.tier import examples

TESTS = Path(__file__).resolve().parents[1]
CHECKPOINT = TESTS / "fixtures" / "init" / "qwen3-235b-a22b-fp8"
NEL307_FAIL = TESTS / "preflight" / "fixtures" / "NEL307" / "fail"
METACHAR = re.compile(r"[\n\r;&|`<>]|\$\(")

FACTS_TEXT = """\
hostname: login.cluster.example
account: my-team
partition: batch
output_dir: /lustre/my-team/evals
walltime: "04:00:00"
gpus_per_node: 8
gpu_mem_gib: 80
max_nodes: 1
checkpoint_path: /lustre/models/Qwen3-235B-A22B-FP8
served_model_name: qwen3-235b-fp8
gym_image: registry.example/my-team/nemo-gym-git:26.05
thinking: true
reasoning_parser: qwen3
"""
# Where mrcr-128k writes each string fact (the launcher reads these keys).
WRITTEN_AT = {
    "hostname": "execution.hostname",
    "account": "execution.account",
    "partition": "execution.partition",
    "output_dir": "execution.output_dir",
    "walltime": "execution.walltime",
    "checkpoint_path": "deployment.checkpoint_path",
    "served_model_name": "deployment.served_model_name",
    "reasoning_parser": "deployment.reasoning_parser",
    "vllm_image": "deployment.image",
    "gym_image": "evaluation.tasks.0.container",
}


def _init(run_cli, tmp_path, facts_text=FACTS_TEXT, *sets):
    facts = tmp_path / "facts.yaml"
    facts.write_text(facts_text)
    out = tmp_path / "out.yaml"
    argv = ["init", "mrcr-128k", "--checkpoint", CHECKPOINT, "--facts", facts, "-o", out]
    for item in sets:
        argv += ["--set", item]
    code, stdout, stderr = run_cli(*argv)
    return code, stdout, stderr, facts, out


def _refused(run_cli, tmp_path, facts_text, sets, needle):
    code, stdout, stderr, facts, out = _init(run_cli, tmp_path, facts_text, *sets)
    assert code == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert needle in stderr, stderr
    assert not out.exists()  # nothing written
    assert facts.read_text() == facts_text  # the input is unchanged


def _with(name: str, line: str) -> str:
    return re.sub(rf"(?m)^{name}:.*$", line.replace("\\", "\\\\"), FACTS_TEXT)


# -- item 3: facts become shell commands ------------------------------------------------


def test_newline_in_a_facts_file_path_is_refused_with_file_and_line(run_cli, tmp_path):
    text = _with("checkpoint_path", 'checkpoint_path: "/x\\ntouch /tmp/PWNED"')
    line = text.splitlines().index('checkpoint_path: "/x\\ntouch /tmp/PWNED"') + 1
    _refused(
        run_cli,
        tmp_path,
        text,
        [],
        f"facts.yaml:{line}: fact checkpoint_path: newline not allowed in a path",
    )


@pytest.mark.parametrize(
    ("item", "needle"),
    [
        ("checkpoint_path=/x; rm -rf ~", "fact checkpoint_path: ';' not allowed in a path"),
        ("served_model_name=x; id", "fact served_model_name: ';' not allowed in a name"),
        ("reasoning_parser=qwen3 $(id)", "fact reasoning_parser: space not allowed in a name"),
        ("reasoning_parser=qwen3$(id)", "fact reasoning_parser: '$' not allowed in a name"),
        ("hf_cache=/a`id`", "fact hf_cache: '`' not allowed in a path"),
        ("partition=batch|id", "fact partition: '|' not allowed in a name"),
        ("account=a>b", "fact account: '>' not allowed in a name"),
        ("hostname=login&id", "fact hostname: '&' not allowed in a hostname"),
        ("vllm_image=vllm/vllm-openai:v1;id", "fact vllm_image: ';' not allowed in an image"),
        ("judge_url=https://h/v1;id", "fact judge_url: ';' not allowed in a URL"),
        ("output_dir=evals", "fact output_dir: a path must be absolute"),
        ("output_dir=/a/../etc", "fact output_dir: '..' not allowed in a path"),
        ("served_model_name=a #b", "fact served_model_name: space not allowed in a name"),
        ("served_model_name=a\u200bb", "fact served_model_name: U+200B not allowed in a name"),
        ("walltime=1:30", "fact walltime: '1:30' is not HH:MM:SS"),
        ("gpus_per_node=0x10", "fact gpus_per_node: must be a positive integer"),
        ("gpus_per_node=1e3", "fact gpus_per_node: must be a positive integer"),
        ("gym_image=Registry/X:1", "fact gym_image: 'Registry/X:1' is not an image reference"),
        ("checkpoint_path=${oc.env:HOME}", "fact checkpoint_path: an interpolation"),
        # a mount list splits on ',' and ':' (issue 30, item 4)
        ("checkpoint_path=/lustre/m,/home/u/.ssh", "fact checkpoint_path: ',' not allowed"),
        ("hf_cache=/lustre/c:/root", "fact hf_cache: ':' not allowed in a path"),
        ("output_dir=/lustre/e,v", "fact output_dir: ',' not allowed in a path"),
    ],
)
def test_a_set_fact_outside_its_kind_is_one_line_exit_2(run_cli, tmp_path, item, needle):
    _refused(run_cli, tmp_path, FACTS_TEXT, [item], needle)


def test_newline_through_set_is_refused(run_cli, tmp_path):
    _refused(
        run_cli,
        tmp_path,
        FACTS_TEXT,
        ["checkpoint_path=/x\ntouch /tmp/PWNED"],
        "fact checkpoint_path: newline not allowed in a path",
    )


@pytest.mark.parametrize("value", ["[/a, /b]", "{a: 1}"])
def test_a_facts_file_value_must_be_one_scalar(run_cli, tmp_path, value):
    _refused(
        run_cli,
        tmp_path,
        _with("checkpoint_path", f"checkpoint_path: {value}"),
        [],
        "fact checkpoint_path:",
    )


def test_a_fact_given_twice_in_the_file_is_refused(run_cli, tmp_path):
    _refused(run_cli, tmp_path, FACTS_TEXT + "account: other\n", [], "fact account given twice")


# -- item 4: facts change type ------------------------------------------------------------


@pytest.mark.parametrize(
    ("fact", "file_text", "expected"),
    [
        ("account", "account: 1.10", "1.10"),
        ("account", "account: 0x10", "0x10"),
        ("account", "account: 1e3", "1e3"),
        ("account", "account: 0777", "0777"),
        ("account", "account: yes", "yes"),
        ("account", "account: null_team", "null_team"),
        ("partition", "partition: 1:30", "1:30"),
        ("partition", "partition: '1_000'", "1_000"),
        ("served_model_name", "served_model_name: 1.5", "1.5"),
        ("served_model_name", "served_model_name: true", "true"),
    ],
)
def test_a_facts_file_string_is_read_as_written(run_cli, tmp_path, fact, file_text, expected):
    code, _, stderr, _, out = _init(run_cli, tmp_path, _with(fact, file_text))
    assert code == 0, stderr
    assert OmegaConf.select(OmegaConf.load(out), WRITTEN_AT[fact]) == expected


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("account=1e3", "1e3"),
        ("account=1.10", "1.10"),
        ("account=0x10", "0x10"),
        ("partition=1:30", "1:30"),
        ("account=off", "off"),
        ("account='1e3'", "1e3"),  # one pair of YAML quotes is taken off
        ("served_model_name=NaN", "NaN"),
        ("served_model_name=.inf", None),  # a name starts with a letter, digit or _
    ],
)
def test_a_set_string_is_written_as_a_string(run_cli, tmp_path, item, expected):
    code, _, stderr, _, out = _init(run_cli, tmp_path, FACTS_TEXT, item)
    if expected is None:
        assert code == 2 and len(stderr.strip().splitlines()) == 1
        return
    assert code == 0, stderr
    name = item.split("=", 1)[0]
    value = OmegaConf.select(OmegaConf.load(out), WRITTEN_AT[name])
    assert value == expected and isinstance(value, str)


# One accepted value per string kind, tricky for YAML 1.1 or OmegaConf, and where it lands.
ROUND_TRIP = [
    ("hostname", "10.0.0.1"),
    ("account", "1e3"),
    ("partition", "1:30:00"),
    ("output_dir", "/lustre/1.2+x=%y~z"),  # no "," or ":": they split a mount list
    ("walltime", "1-00:00:00"),
    ("checkpoint_path", "/lustre/models/1.10"),
    ("served_model_name", "org/Model:v1.0@x+y"),
    ("reasoning_parser", "qwen3"),
    ("vllm_image", "nvcr.io:5000/nvidia/vllm:25.11-py3@sha256:" + "a" * 64),
    ("gym_image", "nvcr.io#nvidia/nemo-gym:26.05"),
]


@pytest.mark.parametrize(("fact", "value"), ROUND_TRIP)
def test_each_kind_round_trips_through_omegaconf(run_cli, tmp_path, fact, value):
    code, _, stderr, _, out = _init(run_cli, tmp_path, FACTS_TEXT, f"{fact}={value}")
    assert code == 0, stderr
    assert OmegaConf.select(OmegaConf.load(out), WRITTEN_AT[fact]) == value


def test_a_parser_vllm_does_not_register_is_refused_not_written(run_cli, tmp_path):
    # init writes only what its own preflight accepts (NEL313: the server would exit)
    code, _, stderr, _, out = _init(run_cli, tmp_path, FACTS_TEXT, "reasoning_parser=0x10")
    assert code == 1 and not out.exists()
    assert "NEL313" in stderr and "'0x10'" in stderr


def test_a_mount_fact_round_trips_as_a_key(run_cli, tmp_path):
    code, _, stderr, _, out = _init(run_cli, tmp_path, FACTS_TEXT, "hf_cache=/lustre/1.10")
    assert code == 0, stderr
    mounts = OmegaConf.to_container(OmegaConf.load(out).execution.mounts)
    assert mounts["deployment"] == {"/lustre/1.10": "/hf-cache"}


# -- property-based ----------------------------------------------------------------------

SHELLY = st.text(
    alphabet=st.sampled_from(list("abz09/._-:@+#,=%~ \n\r\t;&|`$()<>'\"\\{}*?!é\u200b")),
    max_size=24,
)
STRING_FACTS = [f for f in FACTS.values() if f.form in STRING_KINDS]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fact=st.sampled_from(STRING_FACTS), text=SHELLY)
def test_no_metacharacter_survives_a_kind_check(fact, text):
    try:
        value = check_value(fact, text)
    except FactError:
        return
    assert value == text
    assert not METACHAR.search(value) and not re.search(r"\s", value)
    assert not any(ch in value for ch in "'\"\\$")


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fact=st.sampled_from(STRING_FACTS), text=SHELLY)
def test_an_accepted_fact_round_trips_exactly(fact, text):
    try:
        value = read_facts(None, [f"{fact.name}={text}"]).get(fact.name)
    except Exception:  # refused: InputError, one line (the CLI tests above)
        return
    if value is None:
        return  # an empty --set unsets the fact
    written = f"k: {yaml_scalar(value)}\n"
    assert OmegaConf.create(written).k == value
    assert yaml.safe_load(written)["k"] == value


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=30).filter(lambda t: "${" not in t))
def test_any_text_is_written_as_the_same_string(text):
    written = f"k: {yaml_scalar(text)}\n"
    loaded = OmegaConf.to_container(OmegaConf.create(written), resolve=False)["k"]
    assert loaded == text and yaml.safe_load(written)["k"] == text


# -- NEL307 and the launcher's real rendering ---------------------------------------------


@pytest.mark.parametrize("config", sorted(NEL307_FAIL.glob("*.yaml")), ids=lambda p: p.stem)
def test_preflight_reports_each_shell_injection(config):
    findings = check_file(str(config), Options())
    assert [f.severity for f in findings if f.rule == "NEL307"] == ["error"]


@pytest.mark.launcher
def test_the_launcher_runs_a_newline_in_checkpoint_path_as_a_command():
    from helpers.nel import dry_run

    result = dry_run(NEL307_FAIL / "checkpoint_newline.yaml")
    assert result.returncode == 0, result.stderr[-2000:]  # nel itself does not object
    (script,) = result.scripts
    standalone = [line for line in script.splitlines() if line.startswith("touch /tmp/PWNED")]
    assert standalone, "the rendered script no longer carries the injected line"
    findings = check_file(str(NEL307_FAIL / "checkpoint_newline.yaml"), Options())
    assert any(f.rule == "NEL307" and f.severity == "error" for f in findings)


@pytest.mark.launcher
def test_an_init_config_with_a_numeric_looking_account_renders_it_verbatim(run_cli, tmp_path):
    from helpers.nel import dry_run

    code, _, stderr, _, out = _init(run_cli, tmp_path, FACTS_TEXT, "account=1e3")
    assert code == 0, stderr
    result = dry_run(out)
    assert "#SBATCH --account 1e3\n" in "\n".join(result.scripts), result.stderr[-2000:]
