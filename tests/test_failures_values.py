"""The failure rules' conditions and computed fixes, checked by value on both sides of each
condition (issue 52: the mutation tier's survivors in checks/failures/). Task directories
hold the real nel 0.2.6 run.sub (tests/helpers/failure_logs.py); a Hit built here carries
the text the rule's own pattern matched."""

from __future__ import annotations

import os

import pytest

from evalkit.checks.failures import BY_ID
from evalkit.checks.failures.model import Hit, TaskFacts
from evalkit.runs.layout import ROLLOUTS_FILE
from helpers.failure_logs import dead_task, signature_logs, triage_of
from helpers.limits import limits_row


def _hit(rule_id: str, file: str, text: str) -> Hit:
    rule = BY_ID[rule_id]
    match = next(filter(None, (p.search(text) for p in (rule.pattern, *rule.wordings))), None)
    assert match, (rule_id, text)
    groups = {k: v for k, v in match.groupdict().items() if v is not None}
    return Hit(rule_id, file, 1, text, groups, "4100001")


@pytest.mark.parametrize("rollouts, cause", [("", "gym-prepare-failed"), ('{"r": 1}\n', None)])
def test_a_prepare_error_ends_the_run_only_when_no_rollout_was_written(
    tmp_path, cli, rollouts, cause
):
    """The same error after the prepare line: with rollouts on disk, prepare had finished
    (the error is a later one, not a failed prepare)."""
    task = dead_task(tmp_path, signature_logs("gym-prepare-failed"), jobs=["4100001"])
    if rollouts:
        written = task / "artifacts" / ROLLOUTS_FILE
        written.write_text(rollouts)
        then = (task / "run.sub").stat().st_mtime  # as old as the rest: the run is over
        os.utime(written, (then, then))
    _, doc = triage_of(cli, task)
    assert doc["state"] == "failed"
    named = doc["triage"]["cause"] and doc["triage"]["cause"]["id"]
    assert (named == "gym-prepare-failed") is (cause is not None), doc["triage"]["cause"]


@pytest.mark.parametrize(
    "shards, value",
    [
        (None, "1200"),  # no progress line: twice the 600 s waited
        ((0, 500), "1200"),  # nothing loaded yet: no rate to project from
        ((100, 500), "4800"),  # 600 s for 100 of 500: 3000 s; 1.5x, rounded up to 10 minutes
        ((500, 500), "1200"),  # all loaded: the load is not what was slow
    ],
)
def test_the_raised_health_wait_projects_only_from_a_partial_load(shards, value):
    hit = _hit("health-check-timeout", "slurm-4100001.log", "Health check timeout after 600s")
    (change,) = BY_ID["health-check-timeout"].fix(hit, TaskFacts(shards=shards))
    assert (change.key, change.value) == ("execution.endpoint_readiness_timeout", value)


@pytest.mark.parametrize(
    "served, key, value",
    [
        ("x", "target.api_endpoint.model_id (Gym: policy_model_name)", "x"),
        ("zeta", "target.api_endpoint.model_id (Gym: policy_model_name)", "zeta"),
        ("alpha", "target.api_endpoint.model_id (Gym: policy_model_name)", "alpha"),
        # the server serves the very name asked for, or says nothing: name it served
        ("nemotron", "deployment.served_model_name", "nemotron"),
        (None, "deployment.served_model_name", "nemotron"),
    ],
)
def test_a_404_model_name_is_fixed_on_the_side_that_differs(served, key, value):
    text = "openai.NotFoundError: Error code: 404 - The model `nemotron` does not exist."
    hit = _hit("model-name-404", "client-4100001.log", text)
    facts = TaskFacts(served_model_name=served)
    (change,) = BY_ID["model-name-404"].fix(hit, facts)
    assert (change.key, change.value) == (key, value)
    cause = BY_ID["model-name-404"].cause(hit, facts)
    assert (f"the server serves {served!r}" in cause) is (served is not None), cause


@pytest.mark.parametrize("args, tp", [({}, "2"), ({"--tensor-parallel-size": "4"}, "8")])
def test_no_room_for_the_kv_cache_doubles_the_tensor_parallelism(args, tp):
    """vLLM 0.26's "No available memory for the cache blocks": twice the TP the server ran
    with; one GPU when the serve line does not set it."""
    text = "ValueError: No available memory for the cache blocks. Try increasing"
    hit = _hit("vllm-kv-cache-too-small", "server-0-4100001-0.log", text)
    (change,) = BY_ID["vllm-kv-cache-too-small"].fix(hit, TaskFacts(vllm_args=args))
    assert change.value == f"--tensor-parallel-size {tp}"
    assert f"twice {args.get('--tensor-parallel-size', '1')}:" in change.why


@pytest.mark.parametrize(
    "walltime, shards, value, why",
    [
        (14_400, None, "08:00:00", "twice the 04:00:00 every job spent starting"),
        (5_400, None, "03:00:00", "twice the 01:30:00 every job spent starting"),
        # 5400 s for 100 of 500 shards: a 27000 s load; twice that, in whole hours
        (5_400, (100, 500), "15:00:00", "the shard progress projects a 27000s load"),
    ],
)
@pytest.mark.parametrize("gpus_per_node", [4, None])  # None: run.sub names no count; 8
def test_a_time_limit_while_starting_doubles_the_walltime(
    walltime, shards, value, why, gpus_per_node
):
    hit = _hit(
        "time-limit-while-starting",
        "slurm-4100001.log",
        "slurmstepd: error: *** JOB 4100001 ON node-017 CANCELLED AT 2026-12-03T14:15:01 DUE "
        "TO TIME LIMIT ***",
    )
    facts = TaskFacts(
        walltime_seconds=walltime, shards=shards, nodes=4, gpus_per_node=gpus_per_node
    )
    (change,) = BY_ID["time-limit-while-starting"].fix(hit, facts)
    assert (change.key, change.value) == ("execution.walltime", value)
    assert why in change.why
    hours, gpus = int(value.split(":")[0]), 4 * (gpus_per_node or 8)
    assert f"up to {gpus * hours} GPU-hours ({gpus} GPUs)" in change.why


def _documented_mib(name: str) -> int:
    """The bound docs/tool-reference.md states for the cause's read of NAME, in bytes."""
    row = limits_row("A dead task's files read for its cause")
    size, unit = row.split(f"`{name}` ", 1)[1].split(",")[0].split()
    return int(size) * {"MiB": 1024 * 1024, "KiB": 1024}[unit]


def test_a_run_sub_too_large_to_read_leaves_the_cause_named(tmp_path, cli):
    """run.sub is read for its facts (walltime, nodes, the launch config); one past the
    reader's bound is skipped, and the logs still name the cause."""
    limit = _documented_mib("run.sub")
    task = dead_task(tmp_path, signature_logs("slurm-host-oom"), jobs=["4100001"])
    run_sub = task / "run.sub"
    then = run_sub.stat().st_mtime
    with run_sub.open("a") as out:  # comment lines: still a shell script, past the bound
        out.write("#\n" * (limit // 2 + 1))
    os.utime(run_sub, (then, then))
    code, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "slurm-host-oom"
    # the launch config is not known without run.sub: the next command says CONFIG
    assert doc["triage"]["next"][-1] == "scripts/nel-gym.sh run --config CONFIG"


def test_only_the_first_change_and_those_made_with_it_are_next_steps(tmp_path, cli):
    """GPU memory taken: whole nodes, or else a lower --gpu-memory-utilization (not joint):
    the next steps carry the first; the cause lists both."""
    logs = {
        "server-0-4100001-0.log": "(EngineCore pid=263) ValueError: Free memory on device "
        "cuda:0 (31.2/79.11 GiB) on startup is less than desired GPU memory utilization "
        "(0.9, 71.2 GiB).\n"
    }
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    _, doc = triage_of(cli, task)
    t = doc["triage"]
    assert [f["key"] for f in t["cause"]["fix"]] == [
        "execution.sbatch_extra_flags.exclusive",
        "deployment.command",
    ]
    changes = [line for line in t["next"] if line.startswith("change in ")]
    assert changes == [
        "change in configs/mrcr_1m.yaml: execution.sbatch_extra_flags.exclusive: true"
    ]


def test_a_failed_chain_is_not_awaiting_its_follow_up(tmp_path, cli):
    """Out of walltime with no end line of its own, a task would wait for the follow-up
    job; three starts that each ran out while loading are a failure instead (the
    follow-up starts the same way), so nothing says to wait."""
    from helpers.failure_logs import health_wait_output

    jobs = ["4100001", "4100002", "4100003"]
    started = health_wait_output(tmp_path, timeout=10).split("Health check timeout")[0]
    logs = {
        f"slurm-{j}.log": started + signature_logs("slurm-time-limit", j)[f"slurm-{j}.log"]
        for j in jobs
    }
    task = dead_task(tmp_path, logs, jobs=jobs)
    then = (task / "run.sub").stat().st_mtime
    (task / ".job_start_time").write_text(f"{int(then) - 5 * 3600}\n")  # 5 h of a 4 h job
    os.utime(task / ".job_start_time", (then, then))
    _, doc = triage_of(cli, task)
    assert doc["triage"]["cause"]["id"] == "time-limit-while-starting"
    assert (doc["state"], doc["awaiting_resume"]) == ("failed", False)
    _, out, _ = cli("status", task, "--stale-after", "600")
    assert "waiting: for the follow-up job" not in out


def test_the_job_list_is_read_up_to_its_documented_bound(tmp_path):
    from evalkit.checks.failures.facts import _job_list

    limit = _documented_mib(".slurm_job_id.list")
    path = tmp_path / ".slurm_job_id.list"
    body = b"4100001\n4100002\n"
    path.write_bytes(body + b" " * (limit - len(body)))
    assert _job_list(path) == ["4100001", "4100002"]
    path.write_bytes(body + b" " * (limit - len(body) + 1))
    assert _job_list(path) == []  # left out: the jobs then come from the log names


# The bootstrap's own stop messages (recipes/examples/gym/example_mrcr.yaml, each
# `gym_fail "..."` prints "gym bootstrap: ..."), in file order, and the key each one's fix
# names: the pin's commit or URL, or the task's container image.
BOOTSTRAP_FIX_KEYS = [
    "commit",  # must be a full 40-hex SHA
    "container",  # $gym_dir does not exist
    "container",  # not a git repository
    "url",  # cannot fetch
    "container",  # cannot check out
    "container",  # HEAD is ..., not the pinned ...
    "container",  # cannot import ray
    "container",  # reported no ray version
    "commit",  # neither requirements.txt nor pyproject.toml
]


def test_each_bootstrap_stop_names_its_fix():
    import re

    from helpers.failure_logs import REPO

    source = (REPO / "recipes/examples/gym/example_mrcr.yaml").read_text(encoding="utf-8")
    messages = re.findall(r'gym_fail "([^"]+)"', source)
    assert len(messages) == len(BOOTSTRAP_FIX_KEYS), messages
    rule = BY_ID["mrcr-bootstrap-stop"]
    for message, key in zip(messages, BOOTSTRAP_FIX_KEYS, strict=True):
        text = "gym bootstrap: " + re.sub(r"\$\{?\w+\}?", "x", message)
        (change,) = rule.fix(_hit(rule.id, "client-4100001.log", text), TaskFacts())
        assert change.key.rsplit(".", 1)[-1] == key, (message, change)


@pytest.mark.parametrize(
    "heads, tp, best",
    [(28, 8, 4), (40, 16, 8), (16, 10, 8), (48, 32, 16), (7, 4, 1)],
)
def test_the_tensor_parallelism_offered_is_the_largest_power_of_two_dividing_the_heads(
    heads, tp, best
):
    text = (
        f"ValueError: Total number of attention heads ({heads}) must be divisible by tensor "
        f"parallel size ({tp})."
    )
    hit = _hit("vllm-tp-heads", "server-0-4100001-0.log", text)
    (change,) = BY_ID["vllm-tp-heads"].fix(hit, TaskFacts())
    assert change.value == f"--tensor-parallel-size {best}"


@pytest.mark.parametrize(
    "args, util, kv",
    [
        ({"--gpu-memory-utilization": "0.95", "--kv-cache-dtype": "fp8"}, 0.95, "fp8"),
        ({}, 0.9, "auto"),  # vLLM's defaults
        ({"--gpu-memory-utilization": "${x}"}, 0.9, "auto"),  # not a number: the default
    ],
)
def test_the_sized_tp_asks_the_sizing_model_with_the_servers_own_flags(args, util, kv):
    """`status --checkpoint DIR --gpu-mem-gib G`: the smallest power-of-two TP, over the
    run's GPUs, at which the sizing model holds one request; asked with the memory share
    and KV dtype vLLM ran with."""
    from evalkit.checks.failures.rules._common import sized_tp

    asked = []

    def sizing(tp, max_len, per_node, kv_dtype, gpu_util):
        asked.append((tp, max_len, per_node, kv_dtype, gpu_util))
        return 3.5 if tp >= 4 else None

    facts = TaskFacts(vllm_args=args, nodes=2, gpus_per_node=4, sizing=sizing)
    change = sized_tp(facts, 1_100_000)
    assert change.value == "--tensor-parallel-size 4"
    assert asked == [(tp, 1_100_000, 4, kv, util) for tp in (1, 2, 4)]
    assert "at TP 4 each GPU keeps 3.5 GiB for the KV cache" in change.why


def test_the_raised_wait_says_what_the_shards_showed():
    hit = _hit("health-check-timeout", "slurm-4100001.log", "Health check timeout after 600s")
    (change,) = BY_ID["health-check-timeout"].fix(hit, TaskFacts(shards=(100, 500)))
    assert change.why.startswith("shards 100/500 loaded in 600s: the whole checkpoint takes")


@pytest.mark.parametrize(
    "free, share", [("39.9", "0.37"), ("40.0", "0.38"), ("90.5", "0.88"), ("12.0", None)]
)
def test_the_lower_memory_share_is_what_was_free_less_two_points(free, share):
    """free/total cut to whole percent, less 0.02; none offered at 10 % or below."""
    text = (
        f"ValueError: Free memory on device cuda:0 ({free}/100.0 GiB) on startup is less than "
        "desired GPU memory utilization (0.9, 90.0 GiB)."
    )
    hit = _hit("vllm-gpu-memory-taken", "server-0-4100001-0.log", text)
    changes = BY_ID["vllm-gpu-memory-taken"].fix(hit, TaskFacts())
    offered = [c.value for c in changes if "--gpu-memory-utilization" in c.value]
    assert offered == ([f"--gpu-memory-utilization {share}"] if share else [])


@pytest.mark.parametrize(
    "text, value",
    [
        ("120:00:00", 432_000),  # run.sub's max_walltime: hours past 24
        ("1-02:00:00", 93_600),  # sacct's D-HH:MM:SS
        ("45:00", 2_700),  # MM:SS
        ("x-01:00:00", None),
        ("01:xx:00", None),
        ("", None),
    ],
)
def test_a_duration_is_read_as_run_sub_and_sacct_print_it(text, value):
    from evalkit.checks.failures.rules.chain_max_walltime import seconds

    assert seconds(text) == value


@pytest.mark.parametrize("first, second", [("4100001", "4100002"), ("999999", "1000000")])
def test_the_fatal_line_quoted_is_the_latest_jobs(tmp_path, cli, first, second):
    """Two jobs, each ended by an error no signature knows: the job that ended last
    decides, so its line is the one quoted (job ids are numbers: 1000000 follows 999999)."""
    logs = {
        f"client-{first}.log": "RuntimeError: the first job's own failure\n",
        f"client-{second}.log": "RuntimeError: the second job's own failure\n",
    }
    task = dead_task(tmp_path, logs, jobs=[first, second])
    _, doc = triage_of(cli, task)
    cause = doc["triage"]["cause"]
    assert cause["id"] == "not-recognised"
    assert cause["evidence"]["file"] == f"logs/client-{second}.log"
    assert "the second job's own failure" in cause["evidence"]["text"]


def test_oom_while_loading_doubles_the_tensor_parallelism_from_one():
    """No --tensor-parallel-size on the serve line: vLLM ran on one GPU, so two."""
    from evalkit.checks.failures.rules._common import doubled_tp

    assert doubled_tp(TaskFacts()).value == "--tensor-parallel-size 2"
    assert doubled_tp(TaskFacts(vllm_args={"--tensor-parallel-size": "4"})).value == (
        "--tensor-parallel-size 8"
    )


def test_a_failed_task_drops_only_the_stopped_warning(tmp_path, cli):
    """Named as a failure, a task is no longer "stopped, resume it"; the other warnings
    (here the log's error lines) stay."""
    task = dead_task(tmp_path, signature_logs("vllm-cuda-oom"), jobs=["4100001"])
    _, doc = triage_of(cli, task)
    assert doc["state"] == "failed"
    assert [w["id"] for w in doc["warnings"]] == ["log-errors"]
