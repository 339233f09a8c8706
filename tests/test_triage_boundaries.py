"""Issue 52: the triage's boundaries, each on both sides, in the fast tier.

The attempt budget at exactly its limit (two preemptions in a row stop `status`, one does
not), a health wait that already ended with the server ready (no "about to give up"
warning, however late), and the budget's own arithmetic (job order, the cause a job is
charged with). Task directories hold the real nel 0.2.6 run.sub the agent eval uses
(tests/evals/files/runs/dead-health-wait, rendered by tests/helpers/failure_logs.py), so
no test here runs the launcher.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from evalkit.checks.failures import RULES
from evalkit.checks.failures.budget import REPEAT_LIMIT, attempts
from evalkit.checks.failures.model import TaskFacts
from evalkit.checks.failures.scan import LogScanner
from helpers.failure_logs import INVOCATION_DIR, signature_logs

FIXTURE = (
    Path(__file__).resolve().parent
    / "evals/files/runs/dead-health-wait"
    / INVOCATION_DIR
    / "nemo_gym.0"
)
# nel 0.2.6 executors/slurm/executor.py _get_wait_for_server_handler (lines 2248-2262):
# `date`, then "Waiting for server on $ip...", then "server ready on $ip!" and `date`.
WAITING = "Thu Dec  3 10:20:00 UTC 2026\nWaiting for server on 127.0.0.1...\n"
READY = "server ready on 127.0.0.1!\nThu Dec  3 13:40:00 UTC 2026\n"
RULES_BY_ID = {rule.id: rule for rule in RULES}


def task_dir(root: Path, logs: dict[str, str], jobs: list[str], ended_ago: float = 7200.0,
             started_ago: float | None = None) -> Path:  # fmt: skip
    """A task directory with the fixture's run.sub (its TIMEOUT=14400 health wait), LOGS and
    the chain's job list; every file last written ENDED_AGO seconds ago, the job started
    STARTED_AGO seconds ago (10 minutes before the end unless given)."""
    task = root / INVOCATION_DIR / "nemo_gym.0"
    (task / "logs").mkdir(parents=True)
    (task / "artifacts").mkdir()
    shutil.copyfile(FIXTURE / "run.sub", task / "run.sub")
    for name, text in logs.items():
        (task / "logs" / name).write_text(text)
    (task / ".slurm_job_id.list").write_text("".join(f"{j}\n" for j in jobs))
    then = time.time() - ended_ago
    started = time.time() - started_ago if started_ago is not None else then - 600
    (task / ".job_start_time").write_text(f"{int(started)}\n")
    for path in task.rglob("*"):
        os.utime(path, (then, then))
    return task


def triage(cli, task):
    code, out, err = cli("status", task, "--format", "json", "--stale-after", "600")
    assert err == "", err
    return code, json.loads(out)["tasks"][0]


def preempted(job: str) -> dict[str, str]:
    return signature_logs("slurm-preempted", job)


def test_the_fixture_run_sub_waits_14400_seconds():
    assert "\nTIMEOUT=14400\n" in (FIXTURE / "run.sub").read_text()


# ------------------------------------------------------------------ the attempt budget


def test_the_budget_is_two():
    """The tests below are written for it; a change of the limit must change them too."""
    assert REPEAT_LIMIT == 2


def test_one_preemption_is_resumed_and_status_exits_0(tmp_path, cli):
    task = task_dir(tmp_path, preempted("4100001"), jobs=["4100001"])
    code, doc = triage(cli, task)
    assert doc["triage"]["cause"]["id"] == "slurm-preempted"
    assert doc["triage"]["attempts"]["repeated"] == 1
    assert code == 0


def test_two_preemptions_in_a_row_reach_the_budget_and_status_exits_1(tmp_path, cli):
    logs = {**preempted("4100001"), **preempted("4100002")}
    task = task_dir(tmp_path, logs, jobs=["4100001", "4100002"])
    code, doc = triage(cli, task)
    attempts_doc = doc["triage"]["attempts"]
    assert (attempts_doc["count"], attempts_doc["repeated"]) == (2, 2)
    assert attempts_doc["repeated_cause"] == "slurm-preempted"
    assert code == 1


def test_two_preemptions_apart_do_not_reach_the_budget(tmp_path, cli):
    jobs = ["4100001", "4100002", "4100003"]
    logs = {**preempted("4100001"), **signature_logs("slurm-time-limit", "4100002"),
            **preempted("4100003")}  # fmt: skip
    task = task_dir(tmp_path, logs, jobs=jobs)
    code, doc = triage(cli, task)
    assert doc["triage"]["attempts"]["repeated"] == 1
    assert doc["triage"]["attempts"]["causes"] == {
        "4100001": "slurm-preempted",
        "4100002": "slurm-time-limit",
        "4100003": "slurm-preempted",
    }
    assert code == 0


@pytest.fixture
def log_facts(tmp_path):
    """What the scanner status uses reads from LOGS (file name -> text) in a logs folder."""

    def read(logs: dict[str, str]):
        folder = tmp_path / f"logs-{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        for name, text in logs.items():
            (folder / name).write_text(text)
        return LogScanner(RULES).refresh(folder)

    return read


def test_jobs_are_ordered_as_numbers_and_logs_add_jobs_the_list_lacks(log_facts):
    """Job 1000 came after job 999; a job with a Slurm log but not on the list counts."""
    kv_cache = signature_logs("vllm-kv-cache-too-small", "1001")
    logs = {**preempted("999"), **preempted("1000"), **kv_cache, "slurm-1001.log": WAITING}
    found = attempts(TaskFacts(jobs=["999", "1000"]), log_facts(logs), RULES_BY_ID)
    assert found.jobs == ["999", "1000", "1001"]
    assert found.count == 3
    assert (found.streak, found.streak_cause) == (1, "vllm-kv-cache-too-small")
    assert not found.exhausted


def test_the_streak_stops_at_a_job_without_a_cause(log_facts):
    logs = {**preempted("101"), **preempted("103")}
    found = attempts(TaskFacts(jobs=["101", "102", "103"]), log_facts(logs), RULES_BY_ID)
    assert (found.streak, found.streak_cause) == (1, "slurm-preempted")
    assert found.to_json() == {
        "jobs": ["101", "102", "103"],
        "count": 3,
        "causes": {"101": "slurm-preempted", "103": "slurm-preempted"},
        "repeated": 1,
        "repeated_cause": "slurm-preempted",
    }


def test_no_job_ended_by_a_cause_is_no_streak(log_facts):
    found = attempts(TaskFacts(jobs=["7"]), log_facts({"slurm-7.log": "hello\n"}), RULES_BY_ID)
    assert (found.streak, found.streak_cause, found.exhausted) == (0, None, False)


@pytest.mark.parametrize("repeat", [REPEAT_LIMIT - 1, REPEAT_LIMIT, REPEAT_LIMIT + 1])
def test_exhausted_from_exactly_the_limit(repeat, log_facts):
    jobs = [str(100 + i) for i in range(repeat)]
    logs = {}
    for job in jobs:
        logs.update(preempted(job))
    found = attempts(TaskFacts(jobs=jobs), log_facts(logs), RULES_BY_ID)
    assert found.streak == repeat
    assert found.exhausted is (repeat >= REPEAT_LIMIT)


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("model-name-404", "vllm-kv-cache-too-small"),  # client- log read before server-
        ("vllm-kv-cache-too-small", "slurm-preempted"),  # server- log read before slurm-
    ],
)
def test_a_job_is_charged_with_its_best_ranked_cause(first, then, log_facts):
    """Two signatures in one job: the lower rank names it, whichever the scan met first."""
    logs = {**signature_logs(first, "55"), **signature_logs(then, "55")}
    assert len(logs) == 2  # two files, read in name order
    best = min((first, then), key=lambda rule_id: RULES_BY_ID[rule_id].rank)
    assert RULES_BY_ID[first].rank != RULES_BY_ID[then].rank
    found = attempts(TaskFacts(jobs=["55"]), log_facts(logs), RULES_BY_ID)
    assert found.causes == {"55": best}


def test_of_two_causes_of_one_rank_the_first_in_the_log_is_charged(log_facts):
    invalid, kv_cache = (signature_logs(r, "55")["server-0-55-0.log"]
                         for r in ("vllm-invalid-choice", "vllm-kv-cache-too-small"))  # fmt: skip
    assert RULES_BY_ID["vllm-invalid-choice"].rank == RULES_BY_ID["vllm-kv-cache-too-small"].rank
    for text, charged in ((invalid + kv_cache, "vllm-invalid-choice"),
                          (kv_cache + invalid, "vllm-kv-cache-too-small")):  # fmt: skip
        found = attempts(TaskFacts(jobs=["55"]), log_facts({"server-0-55-0.log": text}),
                         RULES_BY_ID)  # fmt: skip
        assert found.causes == {"55": charged}


# ------------------------------------------------------------------ the health wait


def test_a_late_health_wait_warns(tmp_path, cli):
    """The other side of the next test: 12000 s into the 14400 s wait, not ready."""
    task = task_dir(tmp_path, {"slurm-4100001.log": WAITING}, jobs=["4100001"], ended_ago=5,
                    started_ago=12000)  # fmt: skip
    _, doc = triage(cli, task)
    assert [w["id"] for w in doc["triage"]["warnings"]] == ["health-wait-near-timeout"]


def test_a_server_that_became_ready_gets_no_health_wait_warning(tmp_path, cli):
    task = task_dir(tmp_path, {"slurm-4100001.log": WAITING + READY}, jobs=["4100001"],
                    ended_ago=5, started_ago=12000)  # fmt: skip
    code, doc = triage(cli, task)
    assert "health-wait-near-timeout" not in [w["id"] for w in doc["triage"]["warnings"]]
    assert code == 0


SHARDS = (  # vLLM's weight-load progress bar, as tests/helpers/failure_logs.py writes it
    "Loading safetensors checkpoint shards:  64% Completed | 320/500 [2:46:40<1:33:45]\n"
)


@pytest.mark.parametrize("waited, warns", [(10_600, False), (11_000, True)])
def test_the_health_wait_warns_from_three_quarters_of_its_timeout(tmp_path, cli, waited, warns):
    """0.75 x 14400 s = 10800 s: no shard line to project from, so only the share decides;
    late but unprojected, the advice is to watch, not to stop."""
    task = task_dir(tmp_path, {"slurm-4100001.log": WAITING}, jobs=["4100001"], ended_ago=5,
                    started_ago=waited)  # fmt: skip
    _, doc = triage(cli, task)
    assert [w["id"] for w in doc["triage"]["warnings"]] == (
        ["health-wait-near-timeout"] if warns else []
    )
    assert doc["triage"]["next"] == []
    assert doc["triage"]["verdict"].startswith("watch it") is warns


def test_a_load_projected_past_the_wait_says_stop_and_names_the_change(tmp_path, cli):
    """10000 s in (before three quarters), 320 of 500 shards loaded: the load projects to
    about 15625 s, past the 14400 s wait; 1.5x that, rounded up to 10 minutes, is 24000."""
    logs = {"slurm-4100001.log": WAITING, "server-0-4100001-0.log": SHARDS}
    task = task_dir(tmp_path, logs, jobs=["4100001"], ended_ago=5, started_ago=10_000)
    _, doc = triage(cli, task)
    t = doc["triage"]
    assert [w["id"] for w in t["warnings"]] == ["health-wait-near-timeout"]
    assert "of a 14400s wait, shards 320/500; the load projects to" in t["warnings"][0]["cause"]
    assert t["verdict"].startswith("stop it now")
    assert t["next"][0].startswith("nel kill ")
    changes = [line for line in t["next"] if line.startswith("change in ")]
    assert [c.split(": ", 1)[1] for c in changes] == ["execution.endpoint_readiness_timeout: 24000"]
    assert t["next"][-1].startswith("nel run --config ") or t["next"][-1].startswith(
        "scripts/nel-gym.sh run --config "
    )


def test_a_raised_wait_past_the_walltime_prices_the_gpus_of_every_node():
    """health-check-timeout's joint walltime change: 2 nodes of 4 GPUs for 4 hours."""
    from evalkit.checks.failures.model import Hit

    rule = RULES_BY_ID["health-check-timeout"]
    hit = Hit(rule.id, "slurm-4100001.log", 3, "Health check timeout after 7200s",
              {"seconds": "7200"})  # fmt: skip
    facts = TaskFacts(walltime_seconds=14_400, nodes=2, gpus_per_node=4)
    wait, walltime = rule.fix(hit, facts)
    assert (wait.key, wait.value) == ("execution.endpoint_readiness_timeout", "14400")
    assert (walltime.key, walltime.value, walltime.joint) == (
        "execution.walltime",
        "05:00:00",
        True,
    )
    assert "up to 40 GPU-hours a job on 8 GPUs" in walltime.why


def test_an_earlier_jobs_unfinished_wait_is_not_this_jobs(tmp_path, cli):
    """The chain's first job waited and never got an answer; the current job is past its
    wait and serving: no health-wait warning, however late the clock."""
    logs = {"slurm-4100001.log": WAITING, "slurm-4100002.log": WAITING + READY}
    task = task_dir(tmp_path, logs, jobs=["4100001", "4100002"], ended_ago=5,
                    started_ago=13_000)  # fmt: skip
    _, doc = triage(cli, task)
    assert doc["state"] in ("running", "starting")
    assert "health-wait-near-timeout" not in [w["id"] for w in doc["triage"]["warnings"]]


def test_no_job_start_time_is_no_health_wait_warning(tmp_path, cli):
    """Without .job_start_time the time waited is unknown: nothing to warn from."""
    task = task_dir(tmp_path, {"slurm-4100001.log": WAITING}, jobs=["4100001"], ended_ago=5,
                    started_ago=13_000)  # fmt: skip
    (task / ".job_start_time").unlink()
    _, doc = triage(cli, task)
    assert doc["triage"]["warnings"] == []


def test_no_readiness_timeout_in_run_sub_is_no_health_wait_warning(tmp_path, cli):
    """A run.sub whose health wait sets no TIMEOUT: how long the wait lasts is unknown, so
    nothing is said to be near its end."""
    task = task_dir(tmp_path, {"slurm-4100001.log": WAITING}, jobs=["4100001"], ended_ago=5,
                    started_ago=13_000)  # fmt: skip
    run_sub = task / "run.sub"
    text = run_sub.read_text()
    assert text.count("\nTIMEOUT=14400\n") == 2
    then = run_sub.stat().st_mtime
    run_sub.write_text(text.replace("\nTIMEOUT=14400\n", "\n"))
    os.utime(run_sub, (then, then))
    _, doc = triage(cli, task)
    assert doc["triage"]["warnings"] == []
