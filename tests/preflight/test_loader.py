"""The config loader: positions, defaults composition, overrides, interpolation checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config import build_config, load_config
from evalkit.config.command import ServeFlags, parse_size
from evalkit.config.interpolation import _fast_check, _OmegaChecker, find_issues
from evalkit.config.yamldoc import format_path, parse_document
from evalkit.errors import InputError, UsageError
from helpers.tier import examples

from .conftest import FIXTURES


def cfg_from(text: str, overrides=()):
    return build_config(parse_document(text, "t.yaml"), overrides)


def test_yaml_reads_unquoted_walltime_as_integer_like_the_launcher():
    cfg = cfg_from('execution:\n  walltime: 10:00:00\n  max_walltime: "10:00:00"\n')
    assert cfg.get(("execution", "walltime")) == 36000
    assert cfg.get(("execution", "max_walltime")) == "10:00:00"


def test_lines_for_written_and_inherited_keys():
    text = "defaults:\n  - execution: slurm/default\n  - _self_\nexecution:\n  account: a\n"
    cfg = cfg_from(text)
    assert cfg.line(("execution", "account")) == 5
    # gres comes from slurm/default: reported at the nearest written ancestor
    assert cfg.get(("execution", "gres")) == "gpu:8"
    assert cfg.line(("execution", "gres")) == 4
    assert cfg.line(("target",)) == 1  # nothing written: the defaults list


def test_line_inside_folded_and_literal_scalars():
    text = "a:\n  b: >-\n    one\n    two ${x}\n  c: |\n    l1\n    # ${HOME}\n"
    doc = parse_document(text, "t.yaml")
    assert doc.line_in_value(("a", "b"), "${x}") == 4
    assert doc.line_in_value(("a", "c"), "${HOME}") == 7


def test_defaults_order_and_self_position():
    # _self_ first: the group's values win over the file's
    cfg = cfg_from(
        "defaults:\n  - _self_\n  - execution: slurm/default\nexecution:\n  gres: gpu:4\n"
    )
    assert cfg.get(("execution", "gres")) == "gpu:8"
    cfg = cfg_from("defaults:\n  - execution: slurm/default\nexecution:\n  gres: gpu:4\n")
    assert cfg.get(("execution", "gres")) == "gpu:4"  # no _self_: the file still wins


def test_vllm_ray_inherits_vllm():
    cfg = cfg_from("defaults:\n  - deployment: vllm_ray\n")
    assert cfg.get(("deployment", "tensor_parallel_size")) == 8
    assert cfg.get(("deployment", "distributed_executor_backend")) == "ray"
    assert cfg.topology.tp == 8


def test_unknown_group_option_is_reported_not_raised():
    cfg = cfg_from("defaults:\n  - deployment: vllmm\n")
    assert "Could not find 'deployment/vllmm'" in cfg.defaults_problems[0][1]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["execution.num_nodes=2"], 2),
        (["++execution.num_nodes=3"], 3),
        (["execution=local", "++execution.num_nodes=5"], 5),
    ],
)
def test_overrides(overrides, expected):
    cfg = cfg_from("defaults:\n  - execution: slurm/default\n", overrides)
    assert cfg.get(("execution", "num_nodes")) == expected


def test_override_errors_match_hydra_wording():
    with pytest.raises(UsageError, match="Could not override 'execution.nope'"):
        cfg_from("defaults:\n  - execution: slurm/default\n", ["execution.nope=1"])
    with pytest.raises(UsageError, match="already at 'execution.gres'"):
        cfg_from("defaults:\n  - execution: slurm/default\n", ["+execution.gres=gpu:4"])


def test_override_values_parse_like_hydra():
    cfg = cfg_from(
        "a: {b: 1, c: 1, d: 1, e: 1}\n",
        ["a.b=null", "a.c=10:00:00", "a.d=true", "a.e=[1,2]"],
    )
    assert cfg.get(("a",)) == {"b": None, "c": "10:00:00", "d": True, "e": [1, 2]}


@pytest.mark.parametrize(
    ("command", "tp", "dp", "pp"),
    [
        ("vllm serve x --tensor-parallel-size 4 --data-parallel-size 2", 4, 2, 1),
        ("vllm serve x -tp 2 -dp 4 -pp 2", 2, 4, 2),
        ("vllm serve x --tensor-parallel-size=8", 8, 1, 1),
        ("vllm serve x --tensor-parallel-size 2 # --data-parallel-size 4", 2, 1, 1),
        ("python3 -m sglang.launch_server --tp-size 4 --dp-size 2", 4, 2, 1),
    ],
)
def test_parallel_flags(command, tp, dp, pp):
    flags = ServeFlags.parse(command)
    assert (flags.integer("tp"), flags.integer("dp") or 1, flags.integer("pp") or 1) == (
        tp,
        dp,
        pp,
    )


def test_sizes():
    assert parse_size("1100000") == 1_100_000
    assert parse_size("1M") == 1_048_576
    assert parse_size("128k") == 128_000
    assert parse_size("abc") is None


def test_duplicate_keys_are_recorded():
    doc = parse_document("a: 1\nb: 2\na: 3\n", "t.yaml")
    assert doc.duplicates == [(("a",), 3)]
    assert doc.data["a"] == 3


def test_merge_keys_and_aliases():
    doc = parse_document("base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n", "t.yaml")
    assert doc.data["c"] == {"x": 1, "y": 2}


def test_format_path():
    assert format_path(("evaluation", "tasks", 0, "name")) == "evaluation.tasks[0].name"


def test_bad_yaml_raises_input_error_with_line():
    with pytest.raises(InputError) as err:
        parse_document("a: 1\nb: [\n", "t.yaml")
    assert err.value.line is not None


def test_gym_params_from_top_level_and_task():
    cfg = load_config(str(FIXTURES / "_base" / "mrcr.yaml"))
    gym = cfg.mrcr
    assert gym.mrcr_variant.config == "config_n3_1m.yaml"
    assert gym.value("collect_rollout_params", "responses_create_params.max_output_tokens") == (
        "null"
    )
    assert cfg.sampling()["temperature"] == 1.0


# -- interpolation: the fast path must agree with OmegaConf wherever it answers ----------

PIECES = [
    "${deployment.port}", "${nope.key}", "${oc.env:EVALKIT_T_SET}", "${oc.env:EVALKIT_T_UNSET}",
    "${oc.env:EVALKIT_T_UNSET,dflt}", "$HOME", "\\${HOME}", "$${X}", "${X:-d}", "${HOME}",
    "${select_not_null:deployment.hf,/checkpoint}", "text ", "}", "{", "$", " ", "${ a }",
    "${deployment.missing}", "${.rel}",
]  # fmt: skip
DATA = {"deployment": {"port": 8000, "hf": None, "missing": "???"}}
ENV = {"EVALKIT_T_SET": "1"}


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4))
def test_fast_path_agrees_with_omegaconf(parts):
    value = "".join(parts)
    data = {**DATA, "probe": value}
    fast = _fast_check(value, data, ENV)
    if fast is None:
        return  # went to OmegaConf anyway
    slow = _OmegaChecker(data, ENV).check(("probe",), value)
    assert sorted(i.kind for i in fast) == sorted(i.kind for i in slow), (value, fast, slow)


def test_find_issues_exact_messages():
    issues = find_issues({"a": "x ${HOME}", "b": "${X:-y}", "c": "$${Z}", "d": "$HOME"}, {})
    messages = {i.path: i.message for i in issues}
    assert messages[("a",)] == "Interpolation key 'HOME' not found"
    assert messages[("b",)] == "Unsupported interpolation type X"
    assert messages[("c",)] == "Interpolation key 'Z' not found"
    assert ("d",) not in messages
