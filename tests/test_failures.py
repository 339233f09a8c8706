"""Failure signatures (issue 39): a dead run's cause, fix and next command from its own
files, through `evalkit status`. Task directories come from tests/helpers/failure_logs.py:
the real launcher's run.sub and messages, and each other line as its source formats it.
The health-wait and auto-resume lines come from the installed nel 0.2.6's own shell
blocks, run by bash with stub commands: a moment each, so those tests are in the fast
tier; only a whole render or the 14400 s wait's 2880 probes are marked `launcher`."""

from __future__ import annotations

import json
import time

import pytest

from helpers.failure_logs import (
    INVOCATION,
    INVOCATION_DIR,
    LINES,
    REPO,
    chain_output,
    dead_task,
    health_wait_output,
    signature_logs,
    three_health_timeouts,
    triage_of,
)


def text_of(cli, task, *extra):
    code, out, err = cli("status", task, "--stale-after", "600", *extra)
    assert err == "", err
    return code, out


def _commands(steps: list[str]) -> list[str]:
    """The commands of next steps, without the note three spaces after each."""
    return [step.split("   ", 1)[0] for step in steps]


def test_kv_cache_too_small_names_the_estimate_and_the_topology(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert code == 1 and cause["id"] == "vllm-kv-cache-too-small"
    assert cause["evidence"]["file"] == "logs/server-0-4100001-0.log"
    assert cause["evidence"]["line"] == 2
    assert cause["resubmit_can_succeed"] is False
    fixes = [(f["key"], f["value"]) for f in cause["fix"]]
    # 52.66 / 23.37 = 2.25x: the run.sub's TP 2 times 4. Never vLLM's estimate of 488448
    # as --max-model-len: the MRCR 1M task needs its 1.1M (issue 48).
    assert fixes == [("deployment.command", "--tensor-parallel-size 8")]
    assert doc["state"] == "failed"
    assert doc["triage"]["next"][-1] == "scripts/nel-gym.sh run --config configs/mrcr_1m.yaml"
    _, out = text_of(cli, task)
    assert "status: stop and fix" in out
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
    assert _commands(triage["next"]) == [f"nel resume {INVOCATION}"]


def test_text_answer_ends_with_the_next_command(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, out = text_of(cli, task)
    assert "why it ended: vllm-kv-cache-too-small" in out
    assert "evidence: logs/server-0-4100001-0.log:2:" in out
    assert (
        out.rstrip()
        .splitlines()[-1]
        .endswith("scripts/nel-gym.sh run --config configs/mrcr_1m.yaml")
    )


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
    "slurm-host-oom": (False, "change"),
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
        assert _commands(triage["next"]) == [f"nel resume {INVOCATION}"]
    else:
        assert triage["cause"]["fix"], "a config change is named"
        assert triage["next"][-1].startswith("scripts/nel-gym.sh run --config configs/mrcr_1m.yaml")


def test_oom_while_loading_doubles_the_tensor_parallelism(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-cuda-oom"))
    _, doc = triage_of(cli, task)
    (fix,) = doc["triage"]["cause"]["fix"]
    assert (fix["key"], fix["value"]) == ("deployment.command", "--tensor-parallel-size 4")
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
    cause = doc["triage"]["cause"]
    # Not a catch-all cause (issue 48): not recognised, with the line that says so.
    assert cause["id"] == "not-recognised" and cause["component"] == "server"
    assert cause["evidence"]["text"] == "server process 2147483646 died"
    assert cause["resubmit_can_succeed"] is None
    assert [c["id"] for c in doc["triage"]["also_seen"]] == ["server-died"]


def test_the_specific_server_cause_wins_over_the_death(tmp_path, cli):
    wait = health_wait_output(tmp_path, timeout=60, server_alive=False)
    logs = {"slurm-4100001.log": wait, **signature_logs("vllm-kv-cache-too-small")}
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "vllm-kv-cache-too-small"
    assert [c["id"] for c in doc["triage"]["also_seen"]] == ["server-died"]


# ------------------------------------------------------------------ the attempt budget


def test_three_identical_failures_say_do_not_resubmit(tmp_path, cli):
    jobs = ["4100001", "4100002", "4100003"]
    wait = health_wait_output(tmp_path, timeout=10)
    task = dead_task(tmp_path, {f"slurm-{j}.log": wait for j in jobs}, jobs=jobs)
    code, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert code == 1
    assert triage["attempts"]["count"] == 3 and triage["attempts"]["repeated"] == 3
    assert triage["attempts"]["repeated_cause"] == "health-check-timeout"
    assert triage["verdict"].startswith("do not resubmit: the last 3 attempts ended the same way")
    # The change instead, then the relaunch.
    assert triage["next"] == [
        "change in configs/mrcr_1m.yaml: execution.endpoint_readiness_timeout: 20",
        "scripts/nel-gym.sh run --config configs/mrcr_1m.yaml",
    ]
    _, out = text_of(cli, task)
    assert "attempts: 3 Slurm jobs (4100001, 4100002, 4100003); the last 3 ended by" in out


def test_time_limits_while_starting_are_the_drain_loop(tmp_path, cli):
    jobs = ["4100001", "4100002", "4100003"]
    started = health_wait_output(tmp_path, timeout=10).split("Health check timeout")[0]
    logs = {}
    for j in jobs:
        limit = signature_logs("slurm-time-limit", j)[f"slurm-{j}.log"]
        logs[f"slurm-{j}.log"] = started + limit
    task = dead_task(tmp_path, logs, jobs=jobs)
    _, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert triage["cause"]["id"] == "time-limit-while-starting"
    assert triage["verdict"].startswith("do not resubmit")
    # Its queued follow-up is cancelled first, chosen by its dependency on the dead job:
    # never by run.sub's job name, which nel 0.2.6 gives every invocation's same task.
    assert triage["next"][0].startswith("scancel FOLLOW_UP_JOB_ID ")
    assert "afternotok:4100003" in triage["next"][0] and "--name" not in triage["next"][0]
    (fix,) = triage["cause"]["fix"]
    # run.sub asks 04:00:00 on 4 nodes x 4 GPUs: twice that, 16 GPUs x 8 h a job.
    assert (fix["key"], fix["value"]) == ("execution.walltime", "08:00:00")
    assert "128 GPU-hours (16 GPUs)" in fix["why"]


def test_a_chain_of_time_limits_with_service_is_healthy_resuming(tmp_path, cli):
    jobs = ["4100001", "4100002"]
    served = health_wait_output(tmp_path, timeout=10).split("Health check timeout")[0]
    served += "server ready on 127.0.0.1!\n"
    logs = {
        f"slurm-{j}.log": served + signature_logs("slurm-time-limit", j)[f"slurm-{j}.log"]
        for j in jobs
    }
    task = dead_task(tmp_path, logs, jobs=jobs)
    _, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert triage["cause"]["id"] == "slurm-time-limit"
    assert triage["verdict"].startswith("the same config can succeed")
    assert _commands(triage["next"]) == [f"nel resume {INVOCATION}"]


def test_a_spent_chain_names_the_cost_of_another(tmp_path, cli):
    task = dead_task(tmp_path, {}, jobs=["4100001", "4100002"])
    said = chain_output(tmp_path, task, "4100001", "TIMEOUT", "08:00:00", "08:00:00")
    assert "ERROR: Maximum total walltime (08:00:00) exceeded" in said  # the real handler
    (task / "logs/slurm-4100002.log").write_text(said)
    _, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert cause["id"] == "chain-walltime-spent"
    assert "128 GPU-hours on 16 GPUs" in cause["fix"][0]["why"]
    assert _commands(doc["triage"]["next"]) == [f"nel resume {INVOCATION}"]


def test_the_chain_projection_from_progress():
    from evalkit.checks.failures.model import Hit, TaskFacts
    from evalkit.checks.failures.rules import chain_max_walltime as rule

    hit = Hit(rule.ID, "slurm-1.log", 3, "", {"max": "08:00:00", "accumulated": "08:00:00"})
    facts = TaskFacts(nodes=4, gpus_per_node=4, done=600, expected=2400)
    more, faster = rule.RULE.fix(hit, facts)
    # 600 of 2400 in 8 h: 24 h more, 384 GPU-hours; 1.2 x 24 h = 29 h (rounded up).
    assert (more.key, more.value) == ("execution.max_walltime", "29:00:00")
    assert "about 24.0 h more, 384 GPU-hours on 16 GPUs" in more.why
    assert faster.key == "deployment.data_parallel_size"


# ------------------------------------------------------------------ healthy runs


@pytest.mark.parametrize(
    "run",
    ["tests/data/suite/baseline", "tests/data/suite/candidate", "tests/data/runs/mrcr-canary"],
)
def test_finished_runs_get_no_cause(cli, run):
    code, out, err = cli("status", REPO / run, "--format", "json")
    for task in json.loads(out)["tasks"]:
        assert task["triage"]["cause"] is None and task["triage"]["warnings"] == []
        assert task["triage"]["next"] == []


def test_a_running_run_gets_no_cause(tmp_path, cli):
    from helpers.rungen import write_running_mrcr_run

    task, _ = write_running_mrcr_run(
        tmp_path, done=12, now=time.time(), n_items=60, limit=40, prompt_chars=300,
        answer_chars=(200, 600),
    )  # fmt: skip
    code, doc = triage_of(cli, task)
    assert doc["state"] == "running" and code == 0
    assert doc["triage"]["cause"] is None and doc["triage"]["warnings"] == []


# ------------------------------------------------------------------ early, while running


def live_task(tmp_path, logs, started_ago):
    task = dead_task(tmp_path, logs, jobs=["4100001"], ended_ago=5)
    (task / ".job_start_time").write_text(f"{int(time.time() - started_ago)}\n")
    return task


def test_every_request_404_since_the_start_warns_early(tmp_path, cli):
    logs = signature_logs("model-name-404")
    logs["client-4100001.log"] *= 5
    task = live_task(tmp_path, logs, started_ago=300)
    code, doc = triage_of(cli, task)
    assert doc["state"] in ("starting", "running")
    (warning,) = doc["triage"]["warnings"]
    assert warning["id"] == "model-name-404" and warning["matches"] == 5
    assert code == 1
    assert doc["triage"]["next"][0].startswith(f"nel kill {INVOCATION}.0 ")
    assert doc["triage"]["next"][-1] == "scripts/nel-gym.sh run --config configs/mrcr_1m.yaml"


def test_a_404_beside_answered_requests_is_not_the_cause(tmp_path, cli):
    logs = signature_logs("model-name-404")
    # uvicorn's access line for an answered request, as vLLM's server log has it.
    logs["server-0-4100001-0.log"] = (
        '(APIServer pid=1) INFO:     10.0.0.2:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    )
    task = live_task(tmp_path, logs, started_ago=300)
    _, doc = triage_of(cli, task)
    assert doc["triage"]["warnings"] == []


def test_the_health_wait_about_to_give_up_warns_with_the_projection(tmp_path, cli):
    started = health_wait_output(tmp_path, timeout=10).split("Health check timeout")[0]
    shards = (
        "Loading safetensors checkpoint shards:  10% Completed | 50/500 [50:00<7:30:00, 0.02it/s]\n"
    )
    # run.sub waits 14400 s (the example's endpoint_readiness_timeout); 2900 s in, 50 of
    # 500 shards: the load projects to 29000 s, past the wait; 1.5x that, rounded up to
    # 10 minutes, is 43800 for any second the test takes (at 3000 s, one second late
    # crossed a 10-minute step: 45000 became 45600).
    logs = {"slurm-4100001.log": started, "server-0-4100001-0.log": shards}
    task = live_task(tmp_path, logs, started_ago=2900)
    code, doc = triage_of(cli, task)
    (warning,) = doc["triage"]["warnings"]
    assert warning["id"] == "health-wait-near-timeout"
    assert warning["fix"][0]["value"] == "43800"
    assert code == 1


def test_a_chain_ended_by_a_failed_job_is_not_resumed(tmp_path, cli):
    task = dead_task(tmp_path, {}, jobs=["4100001", "4100002"])
    said = chain_output(tmp_path, task, "4100001", "FAILED", "00:12:00")
    assert "finished with 'FAILED' state. EXIT!" in said  # the real handler
    (task / "logs/slurm-4100002.log").write_text(said)
    _, doc = triage_of(cli, task)
    triage = doc["triage"]
    assert triage["cause"]["id"] == "chain-ended"
    assert triage["verdict"].startswith("do not resubmit the same config")
    assert not any(step.startswith("nel resume") for step in triage["next"])


@pytest.mark.launcher
def test_the_readme_shows_the_real_answer(tmp_path, cli):
    """docs/tool-reference.md's dead-run block is this fixture's output (lines it elides aside)."""
    task = three_health_timeouts(tmp_path / "runs", tmp_path)
    _, out = text_of(cli, task.parent)
    readme = (REPO / "docs" / "tool-reference.md").read_text(encoding="utf-8")
    block = readme.split("A dead run's answer", 1)[1].split("```\n", 2)[1]
    produced = out.splitlines()
    for line in block.splitlines():
        assert line in produced, f"tool-reference line not in the output: {line!r}"


@pytest.mark.launcher
def test_a_copied_dead_folder_still_gets_its_cause(tmp_path, cli):
    """Files written a moment ago (a fresh copy or sync): the job's own last lines say it
    ended, so the task is not called starting."""
    task = three_health_timeouts(tmp_path / "runs", tmp_path, ended_ago=5)
    (task / ".job_start_time").unlink()
    code, doc = triage_of(cli, task)
    assert (code, doc["state"]) == (1, "failed")
    assert doc["triage"]["cause"]["id"] == "health-check-timeout"


@pytest.mark.launcher
def test_the_eval_fixture_is_the_generated_run(tmp_path):
    """tests/evals/files/runs/dead-health-wait is three_health_timeouts' output, so the
    agent eval reads the real launcher's run.sub and lines."""
    fixture = REPO / "tests/evals/files/runs/dead-health-wait"
    made = three_health_timeouts(tmp_path / "runs", tmp_path).parent.parent
    (made / INVOCATION_DIR / "nemo_gym.0" / ".job_start_time").unlink()
    expected = {p.relative_to(made): p.read_bytes() for p in made.rglob("*") if p.is_file()}
    found = {p.relative_to(fixture): p.read_bytes() for p in fixture.rglob("*") if p.is_file()}
    assert found == expected, "regenerate: python tests/helpers/failure_logs.py DEST"


def test_the_scanner_reads_only_what_was_appended(tmp_path):
    from evalkit.checks.failures import RULES
    from evalkit.checks.failures.scan import LogScanner

    logs = tmp_path / "logs"
    logs.mkdir()
    client = logs / "client-4100001.log"
    line = signature_logs("model-name-404")["client-4100001.log"]
    client.write_text("starting\n" + line)
    scanner = LogScanner(RULES)
    first = scanner.refresh(logs)
    assert first.hits["model-name-404"].count == 1
    with client.open("a") as handle:
        handle.write(line + line[:20])  # one more complete line, then a write in progress
    again = scanner.refresh(logs)
    bucket = again.hits["model-name-404"]
    assert bucket.count == 2 and [h.line for h in bucket.hits] == [2, 3]
    client.write_text(line)  # replaced by a rerun: counted afresh
    assert scanner.refresh(logs).hits["model-name-404"].count == 1


def test_rollouts_exit_is_named_with_the_bootstrap_line(tmp_path, cli):
    # recipes/examples/gym/example_mrcr.yaml:254, the bootstrap's own report.
    logs = {"client-4100001.log": "gym bootstrap: ng_e2e_collect_rollouts exited with 1\n"}
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "gym-rollouts-exited"
    assert doc["triage"]["cause"]["resubmit_can_succeed"] is False


def test_values_a_cause_repeats_are_redacted(tmp_path, cli):
    token = "hf_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"
    url = f"https://huggingface.co/nvidia/Gated/resolve/main/config.json?token={token}"
    logs = {"server-0-4100001-0.log": f"Cannot access gated repo for url {url}.\n"}
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    code, out, err = cli("status", task, "--stale-after", "600")
    assert "why it ended: hf-gated-repo" in out
    assert token not in out
    _, doc = triage_of(cli, task)
    assert token not in json.dumps(doc)


def test_a_late_health_wait_without_a_projection_is_watched_not_stopped(tmp_path, cli):
    started = health_wait_output(tmp_path, timeout=10).split("Health check timeout")[0]
    # 12000 s into run.sub's 14400 s wait, no shard line to project from.
    task = live_task(tmp_path, {"slurm-4100001.log": started}, started_ago=12000)
    code, doc = triage_of(cli, task)
    (warning,) = doc["triage"]["warnings"]
    assert warning["id"] == "health-wait-near-timeout"
    assert doc["triage"]["verdict"].startswith("watch it")
    assert doc["triage"]["next"] == [] and code == 0


def _next_lines(out: str) -> list[str]:
    return [line.strip() for line in out.split("\nnext:\n", 1)[1].splitlines()]


def test_validate_on_a_dead_run_gives_the_cause_not_a_resume(tmp_path, cli):
    """validate said "Resume the run (progress is kept)" and printed the sbatch line for
    a run whose config cannot start: the resubmission fails the same way."""
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, out, err = cli("validate", task)
    assert code == 1 and err == ""
    assert "why it ended: vllm-kv-cache-too-small" in out
    steps = _next_lines(out)
    assert steps[:2] == [
        "change in configs/mrcr_1m.yaml: deployment.command: --tensor-parallel-size 8",
        "scripts/nel-gym.sh run --config configs/mrcr_1m.yaml",
    ]
    assert not any("sbatch run.sub" in s or "nel resume" in s for s in steps)
    assert not any(s.startswith("fix rollout-count:") for s in steps)
    code, out, _ = cli("validate", task, "--format", "json")
    doc = json.loads(out)
    _, status = triage_of(cli, task)
    assert doc["tasks"][0]["triage"]["cause"] == status["triage"]["cause"]
    assert doc["tasks"][0]["triage"]["next"] == status["triage"]["next"]


def test_validate_on_a_timed_out_run_resumes_it(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("slurm-time-limit"), jobs=["4100001"])
    _, out, _ = cli("validate", task)
    assert "why it ended: slurm-time-limit" in out
    assert _commands(_next_lines(out))[0] == f"nel resume {INVOCATION}"


def test_validate_on_an_incomplete_run_without_a_cause_keeps_its_resume(tmp_path, cli):
    task = dead_task(tmp_path, {"slurm-4100001.log": "starting\n"}, jobs=["4100001"])
    _, out, _ = cli("validate", task)
    assert "why it ended" not in out
    assert any("sbatch run.sub" in s for s in _next_lines(out))


def test_a_config_path_with_a_control_character_is_one_exact_shell_word(tmp_path, cli):
    """run.sub is run data: its launch path reaches the relaunch command as a word bash
    reads back byte for byte (shlex.quote alone printed `'...\\x1b...'`, another file)."""
    import subprocess

    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    odd = "configs/mrcr\x1b[31m_1m\u202e.yaml"
    run_sub = task / "run.sub"
    run_sub.write_text(
        run_sub.read_text().replace("--config configs/mrcr_1m.yaml", f"--config {odd}")
    )
    _, doc = triage_of(cli, task)
    relaunch = doc["triage"]["next"][-1]
    prefix = "scripts/nel-gym.sh run --config "
    assert relaunch.startswith(prefix) and relaunch.isprintable()
    echo = subprocess.run(
        ["bash", "-c", f"printf %s {relaunch[len(prefix) :]}"], capture_output=True, text=True
    )
    assert echo.stdout == odd
    _, out = text_of(cli, task)
    assert relaunch in out.splitlines()[-1]


@pytest.mark.launcher
def test_the_saved_run_sub_is_the_launchers_render():
    """The task directories of the fast tier carry a checked-in copy of the real render;
    it must stay what nel 0.2.6 writes for the example (python
    tests/helpers/failure_logs.py --run-sub rewrites it)."""
    from helpers.failure_logs import rendered_run_sub, saved_run_sub

    assert saved_run_sub() == rendered_run_sub()


def test_a_judge_404_in_a_run_with_rollouts_is_not_stopped(tmp_path, cli):
    """issue 48: one 404 in the client log of a run that has written rollouts is a
    caller's wrong name (a judge): the run is making progress, so no "stop it now"."""
    logs = signature_logs("model-name-404")
    task = live_task(tmp_path, logs, started_ago=300)
    (task / "artifacts" / "evaluator_rollouts.jsonl").write_text('{"reward": 1.0}\n')
    _, doc = triage_of(cli, task)
    assert doc["triage"]["warnings"] == [] and doc["triage"]["next"] == []
    assert not doc["triage"]["verdict"].startswith("stop it now")


def test_kv_cache_topology_is_sized_from_the_checkpoint_when_given(tmp_path, cli):
    """issue 48: with --checkpoint and --gpu-mem-gib the TP fix comes from evalkit's
    sizing model (a Llama-3-8B shape: 128 KiB of KV a token, 1.1M tokens = 134 GiB;
    at TP 4 each 80 GiB GPU holds its quarter), not from scaling vLLM's ratio (TP 8)."""
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLM"],
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "hidden_size": 4096,
                "intermediate_size": 14336,
                "vocab_size": 128256,
                "torch_dtype": "bfloat16",
                "max_position_embeddings": 131072,
            }
        )
    )
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    _, doc = triage_of(cli, task, "--checkpoint", ckpt, "--gpu-mem-gib", "80")
    (fix,) = doc["triage"]["cause"]["fix"]
    assert fix["value"] == "--tensor-parallel-size 4"
    assert fix["why"].startswith("evalkit's sizing model: at TP 4")
    _, plain = triage_of(cli, task)
    assert plain["triage"]["cause"]["fix"][0]["value"] == "--tensor-parallel-size 8"


def test_checkpoint_without_gpu_memory_is_one_line_and_exit_2(tmp_path, run_cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    code, out, err = run_cli("status", task, "--checkpoint", tmp_path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
