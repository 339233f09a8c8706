"""Failure signatures (issue 39): a dead run's cause, fix and next command from its own
files, through `evalkit status`. Task directories come from tests/helpers/failure_logs.py:
the real launcher's run.sub and messages, and each other line as its source formats it."""

from __future__ import annotations

import json

import pytest

from helpers.failure_logs import INVOCATION, LINES, dead_task, health_wait_output, signature_logs

pytestmark = pytest.mark.launcher


@pytest.fixture
def cli(run_cli, capsys):
    """run_cli, after dropping what the launcher's dry-run (rendering run.sub) logged."""

    def _run(*argv):
        capsys.readouterr()
        return run_cli(*argv)

    return _run


def triage_of(cli, task, *extra):
    code, out, err = cli("status", task, "--format", "json", "--stale-after", "600", *extra)
    assert err == "", err
    return code, json.loads(out)["tasks"][0]


def text_of(cli, task, *extra):
    code, out, err = cli("status", task, "--stale-after", "600", *extra)
    assert err == "", err
    return code, out


def test_kv_cache_too_small_names_the_estimate_and_the_topology(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert code == 1 and cause["id"] == "vllm-kv-cache-too-small"
    assert cause["evidence"]["file"] == "logs/server-0-4100001-0.log"
    assert cause["evidence"]["line"] == 2
    assert cause["resubmit_can_succeed"] is False
    fixes = {f["key"]: f["value"] for f in cause["fix"]}
    assert fixes["deployment.extra_args"] == "--max-model-len 488448"
    # 52.66 / 23.37 = 2.25x: the run.sub's TP 2 times 4.
    assert fixes["deployment.tensor_parallel_size"] == "8"
    assert doc["state"] == "failed"
    assert doc["triage"]["next"][-1] == "scripts/nel-gym.sh run --config CONFIG"
    assert "do not resubmit" in doc["triage"]["verdict"]


def test_unknown_reasoning_parser_gets_the_registered_one(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-unknown-reasoning-parser"))
    _, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert cause["id"] == "vllm-unknown-reasoning-parser"
    assert cause["fix"][0]["value"] == "--reasoning-parser nemotron_v3"
    assert "nemotron_nano" in cause["cause"]


def test_model_404_gets_the_served_name(tmp_path, cli):
    logs = signature_logs("model-name-404")
    # vLLM 0.26 logs its non-default args as a dict (serve/utils/api_utils.py:273).
    logs["server-0-4100001-0.log"] = (
        "(APIServer pid=1) INFO 12-03 10:20:00 [api_utils.py:273] non-default args: "
        "{'model': '/checkpoint', 'served_model_name': ['nemotron-3-nano'], 'port': 8000}\n"
    )
    task = dead_task(tmp_path, logs)
    _, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert cause["id"] == "model-name-404"
    assert cause["fix"][0]["value"] == "nemotron-3-nano"
    assert "nvidia/Nemotron-3-Nano" in cause["cause"]


def test_health_check_timeout_projects_the_load_time(tmp_path, cli):
    wait = health_wait_output(tmp_path, timeout=10)
    assert "Health check timeout after 10s" in wait  # the launcher's own line, by bash
    shards = (
        "Loading safetensors checkpoint shards:  20% Completed | 100/500 [00:10<00:40,  9.8it/s]\n"
    )
    task = dead_task(
        tmp_path, {"slurm-4100001.log": wait, "server-0-4100001-0.log": shards}, jobs=["4100001"]
    )
    _, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert cause["id"] == "health-check-timeout"
    (fix,) = cause["fix"]
    # 100/500 shards in 10 s: 50 s to load; 1.5x rounded up to 10 minutes.
    assert (fix["key"], fix["value"]) == ("execution.endpoint_readiness_timeout", "600")


def test_time_limit_is_a_resume_with_the_invocation_id(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("slurm-time-limit"), jobs=["4100001"])
    _, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert triage["cause"]["id"] == "slurm-time-limit"
    assert triage["cause"]["resubmit_can_succeed"] is True
    assert triage["next"] == [f"nel resume {INVOCATION}"]


def test_text_answer_ends_with_the_next_command(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, out = text_of(cli, task)
    assert "why it ended: vllm-kv-cache-too-small" in out
    assert "evidence: logs/server-0-4100001-0.log:2:" in out
    assert out.rstrip().splitlines()[-1].endswith("scripts/nel-gym.sh run --config CONFIG")


@pytest.mark.parametrize("rule_id", sorted(LINES))
def test_every_fixture_line_is_matched_by_its_rule(rule_id):
    from evalkit.checks.failures import RULES
    from evalkit.checks.failures.scan import scan_lines

    name, lines, source = LINES[rule_id]
    assert source
    facts = scan_lines(
        name.replace("{job}", "4100001"), [line.replace("{job}", "1") for line in lines], RULES
    )
    assert rule_id in facts.hits


# rule id -> (can the same config succeed, the next command's first word)
EXPECTED_NEXT = {
    "vllm-invalid-choice": (False, "change"),
    "vllm-cuda-oom": (False, "change"),
    "hf-gated-repo": (False, "change"),
    "hf-offline": (False, "change"),
    "pyxis-image-import": (False, "change"),
    "enroot-mount": (False, "change"),
    "mrcr-bootstrap-stop": (False, "change"),
    "gym-prepare-failed": (False, "change"),
    "slurm-node-failure": (True, "nel"),
    "slurm-preempted": (True, "nel"),
    "slurm-cancelled": (True, "nel"),
}


@pytest.mark.parametrize("rule_id", sorted(EXPECTED_NEXT))
def test_each_signature_class_gets_its_cause_and_next_command(tmp_path, cli, rule_id):
    task = dead_task(tmp_path, signature_logs(rule_id), jobs=["4100001"])
    _, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert triage["cause"]["id"] == rule_id, triage
    resubmit, first_word = EXPECTED_NEXT[rule_id]
    assert triage["cause"]["resubmit_can_succeed"] is resubmit
    assert triage["next"][0].split()[0] == first_word
    if first_word == "nel":
        assert triage["next"] == [f"nel resume {INVOCATION}"]
    else:
        assert triage["cause"]["fix"], "a config change is named"
        assert triage["next"][-1].startswith("scripts/nel-gym.sh run --config CONFIG")


def test_oom_while_loading_doubles_the_tensor_parallelism(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-cuda-oom"))
    _, doc = triage_of(cli, task)
    (fix,) = doc["triage"]["cause"]["fix"]
    assert (fix["key"], fix["value"]) == ("deployment.tensor_parallel_size", "4")
    assert "while loading" in doc["triage"]["cause"]["cause"]


def test_invalid_choice_picks_the_closest_listed_value(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-invalid-choice"))
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["fix"][0]["value"] == "--kv-cache-dtype fp8_e4m3"


def test_enroot_mount_names_the_missing_path(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("enroot-mount"))
    _, doc = triage_of(cli, task)
    assert "/lustre/ckpt/model" in doc["triage"]["cause"]["cause"]
    assert "No such file or directory" in doc["triage"]["cause"]["cause"]


def test_server_died_without_a_specific_signature(tmp_path, cli):
    wait = health_wait_output(tmp_path, timeout=60, server_alive=False)
    assert "server process 2147483646 died" in wait  # the launcher's own line, by bash
    task = dead_task(tmp_path, {"slurm-4100001.log": wait}, jobs=["4100001"])
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "server-died"


def test_the_specific_server_cause_wins_over_the_death(tmp_path, cli):
    wait = health_wait_output(tmp_path, timeout=60, server_alive=False)
    logs = {"slurm-4100001.log": wait, **signature_logs("vllm-kv-cache-too-small")}
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "vllm-kv-cache-too-small"
    assert [c["id"] for c in doc["triage"]["also_seen"]] == ["server-died"]
