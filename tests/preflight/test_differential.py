"""Preflight against the real nel 0.2.6 dry-run, config by config.

Corpus: tests/preflight/corpus/*.yaml (written in the patterns of the launcher's own
examples at tag nemo-evaluator-launcher-v0.2.6), the shipped MRCR template, and
systematic mutations of each (deleted sections, wrong types, unqualified task names,
swapped sections, bad interpolations). For every case the launcher's verdict (refused /
accepted) is compared with preflight's (any error / none):

- every config the launcher refuses must get a preflight error;
- every config it accepts must get none, except where a documented rule proves a defect
  the launcher lets through; those rules are listed in ACCEPTED_BUT_DEFECTIVE with why.

The launcher runs in-process (tests/helpers/launcher.py through nel_batch.run_batch, one
import per worker); a sample also goes through the real `nel` CLI to show the verdicts
agree.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.preflight.runner import Options, check_file

from .nel_batch import fill_blanks, launch_env, run_batch

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
REPO = HERE.parents[1]
EXTRA_BASES = [REPO / "recipes/examples/gym/example_mrcr.yaml"]

# Rules whose errors are correct although the launcher accepts the config: each proves a
# defect the dry-run does not check (see references/rules.md for each). Each rule is
# excused only on the mutation written to trigger it (and "as_is" only on the base that
# carries the defect), never on any other accepted config.
ACCEPTED_BUT_DEFECTIVE = {
    "NEL003": "placeholder text (<...>) reaches the job script; the launcher copies it",
    "NEL004": "a near-miss key (`walltim`): the launcher ignores it, the setting is lost",
    "NEL204": "fewer GPUs than TP x PP x DP: the server cannot start on any cluster",
    "NEL301": "a dead deployment key that differs from what the server really runs",
    "NEL408": "MRCR: a command without --max-model-len serves less context than the cap",
    "NEL411": "a Gym-only evaluation.pre_cmd with no Gym task left: every task dies at it",
}
# (base or "*", mutation) -> the rules of ACCEPTED_BUT_DEFECTIVE that case may raise.
DEFECT_OF = {
    ("*", "account_placeholder"): {"NEL003"},
    ("*", "execution_key_typo"): {"NEL004"},
    ("*", "too_few_gpus"): {"NEL204"},
    ("*", "dead_tp_differs"): {"NEL301", "NEL408"},
    # The MRCR template's Gym install step stays when its one task is renamed to another.
    **{
        ("example_mrcr", m): {"NEL411"}
        for m in (
            "ambiguous_task_ifeval",
            "ambiguous_task_gpqa",
            "unique_unqualified_task",
            "unknown_task",
            "unknown_harness",
        )
    },
}
# Mutations the launcher refuses for a reason that is not in the file (warnings only).
REFUSED_BUT_SILENT = {
    "env_interpolation_unset": "an unset ${oc.env:VAR} depends on the launching shell, "
    "not on the file; NEL104 warns (the same file launches where the variable is set)",
}


def _bases() -> dict[str, dict]:
    out = {}
    for path in sorted(CORPUS.glob("*.yaml")) + EXTRA_BASES:
        out[path.stem] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return out


def _deploys(cfg: dict) -> bool:
    return not any(d == {"deployment": "none"} for d in cfg.get("defaults", []))


def _slurm(cfg: dict) -> bool:
    return {"execution": "slurm/default"} in cfg.get("defaults", [])


def _vllm(cfg: dict) -> bool:
    return any(d in ({"deployment": "vllm"}, {"deployment": "vllm_ray"}) for d in cfg["defaults"])


def _set(cfg: dict, dotted: str, value) -> dict:
    node = cfg
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    node[parts[-1]] = value
    return cfg


def _del(cfg: dict, dotted: str) -> dict:
    node = cfg
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node.pop(parts[-1], None)
    return cfg


def _defaults(cfg: dict, group: str, option: str) -> dict:
    cfg["defaults"] = [
        {group: option} if isinstance(d, dict) and group in d else d for d in cfg["defaults"]
    ]
    return cfg


def _walltime_typo(cfg: dict) -> dict:
    cfg["execution"]["walltim"] = cfg["execution"].pop("walltime", "04:00:00")
    return cfg


def _drop_group(cfg: dict, group: str) -> dict:
    cfg["defaults"] = [d for d in cfg["defaults"] if not (isinstance(d, dict) and group in d)]
    cfg.pop(group, None)
    return cfg


def _local(cfg: dict) -> bool:
    return {"execution": "local"} in cfg.get("defaults", [])


def _drop_env_vars(cfg: dict) -> dict:
    """No env var anywhere (the launcher's local executor trips over that)."""

    def strip(node):
        if isinstance(node, dict):
            node.pop("env_vars", None)
            node.pop("api_key_name", None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(cfg)
    return cfg


def _drop_deployment(cfg: dict) -> dict:
    return _drop_group(cfg, "deployment")


def _drop_execution(cfg: dict) -> dict:
    return _drop_group(cfg, "execution")


def _move_tasks_up(cfg: dict) -> dict:
    cfg["tasks"] = cfg.pop("evaluation")["tasks"]
    return cfg


# name -> (applies to this base?, mutation). Each returns the mutated config.
MUTATIONS = {
    "as_is": (lambda c: True, lambda c: c),
    "no_evaluation": (lambda c: True, lambda c: _del(c, "evaluation")),
    "tasks_at_top_level": (lambda c: True, _move_tasks_up),
    "evaluation_as_list": (lambda c: True, lambda c: _set(c, "evaluation", [{"name": "x"}])),
    "no_target": (lambda c: not _deploys(c), lambda c: _del(c, "target")),
    "target_url_with_deployment": (
        _deploys,
        lambda c: _set(c, "target.api_endpoint.url", "http://localhost:8000/v1/chat"),
    ),
    "target_model_id_with_deployment": (
        _deploys,
        lambda c: _set(c, "target.api_endpoint.model_id", "m"),
    ),
    "ambiguous_task_ifeval": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.name", "ifeval"),
    ),
    "ambiguous_task_gpqa": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.name", "gpqa_diamond"),
    ),
    "unique_unqualified_task": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.name", "gsm8k_cot_instruct"),
    ),
    "unknown_task": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.name", "no_such_benchmark"),
    ),
    "unknown_harness": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.name", "no_such_harness.ifeval"),
    ),
    "task_key_typo": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks.0.nemo_evalutor_config", {}),
    ),
    "evaluation_overrides_key": (
        lambda c: True,
        lambda c: _set(c, "evaluation.overrides", {"a": 1}),
    ),
    "execution_env_vars": (
        lambda c: True,
        lambda c: _set(c, "execution.env_vars", {"A": "lit:1"}),
    ),
    "env_var_not_string": (
        lambda c: True,
        lambda c: _set(c, "evaluation.env_vars", {"MAX_TURNS": 250}),
    ),
    "env_var_unprefixed": (
        lambda c: True,
        lambda c: _set(c, "evaluation.env_vars", {"MAX_TURNS": "250"}),
    ),
    "pre_cmd_brace_var": (
        lambda c: True,
        lambda c: _set(c, "evaluation.pre_cmd", "echo ${HOME}"),
    ),
    "pre_cmd_plain_var": (
        lambda c: True,
        lambda c: _set(c, "evaluation.pre_cmd", "echo $HOME $(hostname)"),
    ),
    "interpolation_to_nothing": (
        lambda c: True,
        lambda c: _set(c, "evaluation.pre_cmd", "echo ${deployment.no_such_key}"),
    ),
    "defaults_typo": (_deploys, lambda c: _defaults(c, "deployment", "vllmm")),
    "defaults_plain_slurm": (_slurm, lambda c: _defaults(c, "execution", "slurm")),
    "walltime_integer": (
        lambda c: _slurm(c) and _deploys(c),
        lambda c: _set(c, "execution.walltime", 36000),
    ),
    "nodes_not_divisible": (
        _slurm,
        lambda c: _set(_set(c, "execution.num_nodes", 3), "execution.num_instances", 2),
    ),
    "mounts_key_typo": (
        _slurm,
        lambda c: _set(c, "execution.mounts.mount_hom", False),
    ),
    "no_deployment_at_all": (lambda c: True, _drop_deployment),
    "local_without_env_vars": (_local, _drop_env_vars),
    "no_execution_at_all": (lambda c: True, _drop_execution),
    "empty_task_list": (lambda c: True, lambda c: _set(c, "evaluation.tasks", [])),
    "task_name_not_string": (lambda c: True, lambda c: _set(c, "evaluation.tasks.0.name", 123)),
    "mount_home_as_word": (_slurm, lambda c: _set(c, "execution.mounts.mount_home", "no")),
    "num_nodes_as_string": (_slurm, lambda c: _set(c, "execution.num_nodes", "1")),
    "tasks_not_a_list": (
        lambda c: True,
        lambda c: _set(c, "evaluation.tasks", {"name": "lm-evaluation-harness.ifeval"}),
    ),
    "env_interpolation_unset": (
        lambda c: True,
        lambda c: _set(c, "evaluation.pre_cmd", "echo ${oc.env:EVALKIT_DIFF_NEVER_SET}"),
    ),
    "inert_top_level_key": (lambda c: True, lambda c: _set(c, "notes", "owner: evals team")),
    # The upstream skill's templates carry nel-next's `cluster:` block; 0.2.6 ignores it.
    "nel_next_cluster_block": (
        lambda c: True,
        lambda c: _set(c, "cluster", {"sbatch_comment": "benchmarking"}),
    ),
    # accepted by the launcher, defects all the same (ACCEPTED_BUT_DEFECTIVE)
    "execution_key_typo": (_slurm, _walltime_typo),
    "account_placeholder": (_slurm, lambda c: _set(c, "execution.account", "<YOUR_ACCOUNT>")),
    "too_few_gpus": (
        lambda c: _slurm(c) and _vllm(c),
        lambda c: _set(c, "execution.gres", "gpu:2"),
    ),
    "dead_tp_differs": (
        _vllm,
        lambda c: _set(
            _set(c, "deployment.command", "vllm serve /checkpoint --port 8000"),
            "deployment.tensor_parallel_size",
            4,
        ),
    ),
    "deprecated_multiple_instances": (
        lambda c: _slurm(c) and _deploys(c),
        lambda c: _set(c, "deployment.multiple_instances", True),
    ),
}


# The rule that must carry the refusal (agreement by coincidence would not count).
REFUSAL_RULE = {
    "no_evaluation": "NEL010",
    "no_deployment_at_all": "NEL010",
    "local_without_env_vars": "NEL010",
    "task_name_not_string": "NEL006",
    "tasks_not_a_list": "NEL006",
    "num_nodes_as_string": "NEL205",
    "no_execution_at_all": "NEL010",
    "empty_task_list": "NEL010",
    "tasks_at_top_level": "NEL010",
    "evaluation_as_list": "NEL006",
    "no_target": "NEL010",
    "target_url_with_deployment": "NEL010",
    "target_model_id_with_deployment": "NEL010",
    "ambiguous_task_ifeval": "NEL009",
    "ambiguous_task_gpqa": "NEL009",
    "unknown_task": "NEL009",
    "unknown_harness": "NEL009",
    "task_key_typo": "NEL004",
    "evaluation_overrides_key": "NEL005",
    "execution_env_vars": "NEL005",
    "env_var_not_string": "NEL006",
    "env_var_unprefixed": "NEL101",
    "pre_cmd_brace_var": "NEL001",
    "interpolation_to_nothing": "NEL001",
    "defaults_typo": "NEL007",
    "defaults_plain_slurm": "NEL007",
    "walltime_integer": "NEL202",
    "nodes_not_divisible": "NEL205",
    "mounts_key_typo": "NEL004",
    "deprecated_multiple_instances": "NEL005",
}


def _cases() -> list[tuple[str, str, str, dict]]:
    cases = []
    for base_name, base in _bases().items():
        for name, (applies, mutate) in MUTATIONS.items():
            if applies(base):
                data = mutate(copy.deepcopy(base))
                cases.append((f"{base_name}-{name}", base_name, name, data))
    return cases


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    work = tmp_path_factory.mktemp("differential")
    env = launch_env()
    jobs, rows = [], []
    for case_id, base_name, mutation, data in _cases():
        path = work / f"{case_id}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        overrides = fill_blanks(path, work / "out")
        jobs.append({"config": str(path), "overrides": overrides})
        rows.append((case_id, base_name, mutation, path, overrides))
    launcher = run_batch(jobs, work, 0, env)
    out: dict[str, dict] = {}
    for (case_id, base_name, mutation, path, overrides), verdict in zip(
        rows, launcher, strict=True
    ):
        # No try: a preflight crash fails the test (it is not a refusal). Every corpus
        # case is a parseable YAML file, so there is no input error to expect either.
        findings = check_file(str(path), Options(overrides=overrides, env=env))
        errors = sorted({f.rule for f in findings if f.severity == "error"})
        warnings = sorted({f.rule for f in findings if f.severity == "warning"})
        out[case_id] = {
            "base": base_name,
            "mutation": mutation,
            "path": path,
            "overrides": overrides,
            "launcher_ok": verdict["ok"],
            "launcher_error": verdict["error"],
            "preflight_errors": errors,
            "preflight_warnings": warnings,
        }
    return out


def test_corpus_bases_are_accepted(verdicts):
    """The corpus itself is sound: the launcher accepts every base as written."""
    refused = {k: v["launcher_error"] for k, v in verdicts.items() if k.endswith("-as_is")}
    refused = {k: e for k, e in refused.items() if not verdicts[k]["launcher_ok"]}
    assert not refused


def test_every_refusal_gets_a_preflight_error(verdicts):
    missed = {
        case: v["launcher_error"]
        for case, v in verdicts.items()
        if not v["launcher_ok"]
        and not v["preflight_errors"]
        and v["mutation"] not in REFUSED_BUT_SILENT
    }
    assert not missed, json.dumps(missed, indent=1)


def test_silent_refusals_are_warned_about(verdicts):
    """The listed environment-dependent refusals still get their NEL104 warning."""
    cases = [v for v in verdicts.values() if v["mutation"] in REFUSED_BUT_SILENT]
    assert cases
    for v in cases:
        assert not v["launcher_ok"] and "NEL104" in v["preflight_warnings"], v


def test_refusals_carry_the_matching_rule(verdicts):
    wrong = {
        case: (REFUSAL_RULE[v["mutation"]], v["preflight_errors"], v["launcher_error"])
        for case, v in verdicts.items()
        if not v["launcher_ok"]
        and v["mutation"] in REFUSAL_RULE
        and REFUSAL_RULE[v["mutation"]] not in v["preflight_errors"]
    }
    assert not wrong, json.dumps(wrong, indent=1)


def excused(v: dict) -> set[str]:
    """The defect rules this case's mutation is meant to trigger."""
    return DEFECT_OF.get((v["base"], v["mutation"]), set()) | DEFECT_OF.get(
        ("*", v["mutation"]), set()
    )


def test_no_false_errors_on_accepted_configs(verdicts):
    false = {
        case: v["preflight_errors"]
        for case, v in verdicts.items()
        if v["launcher_ok"] and set(v["preflight_errors"]) - excused(v)
    }
    assert not false, json.dumps(false, indent=1)


def test_defect_table_names_known_rules():
    assert set().union(*DEFECT_OF.values()) == set(ACCEPTED_BUT_DEFECTIVE)


def test_both_verdicts_occur(verdicts):
    """Guards the oracle: a broken environment would make everything refused."""
    accepted = sum(v["launcher_ok"] for v in verdicts.values())
    assert 0.1 < accepted / len(verdicts) < 0.9, accepted


def test_exceptions_are_still_needed(verdicts):
    """Each listed exception is exercised by some accepted case (none is stale)."""
    used = {
        code
        for v in verdicts.values()
        if v["launcher_ok"]
        for code in set(v["preflight_errors"]) & excused(v)
    }
    assert set(ACCEPTED_BUT_DEFECTIVE) <= used, set(ACCEPTED_BUT_DEFECTIVE) - used


def test_defect_mutations_are_accepted_and_caught(verdicts):
    """Each defect mutation is accepted by the launcher and raises its own rule."""
    for v in verdicts.values():
        if (v["base"], v["mutation"]) in DEFECT_OF or ("*", v["mutation"]) in DEFECT_OF:
            assert v["launcher_ok"], v
            assert set(v["preflight_errors"]) & excused(v), v


@pytest.mark.parametrize("case", ["slurm_vllm-as_is", "local_endpoint-ambiguous_task_ifeval"])
def test_cli_agrees_with_in_process(verdicts, case):
    """A sample through the real `nel run --dry-run` CLI gives the batch's verdict."""
    from helpers.nel import dry_run_subprocess

    v = verdicts[case]
    overrides = dict(o.split("=", 1) for o in v["overrides"])
    result = dry_run_subprocess(v["path"], overrides)
    assert (result.returncode == 0) == v["launcher_ok"], result.stderr[-2000:]


def test_every_case_has_one_verdict_each_side(verdicts):
    """The table is complete: one launcher verdict per case, with a one-line reason for
    every refusal (an empty reason would hide what the launcher said)."""
    assert len(verdicts) == len(_cases())
    for case, v in verdicts.items():
        assert isinstance(v["launcher_ok"], bool), case
        assert v["launcher_ok"] or (v["launcher_error"] and "\n" not in v["launcher_error"]), v


def test_agree_on_examples_script_on_the_corpus():
    """The script the README's launcher-examples figure comes from, run on our corpus."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "agree_on_examples.py"), str(CORPUS)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    bases = len(list(CORPUS.glob("*.yaml")))
    assert f"{bases} configs: launcher accepted {bases} (preflight errors on 0)" in proc.stdout
