"""`evalkit status`: runs caught while they are written, every state, figure and warning.

Runs come from tests/helpers/rungen.py: `write_running_mrcr_run` cuts a synthetic nel
0.2.6 MRCR run short (first N rollouts, optionally half a line more, no aggregate yet)
and writes the job-time files the launcher's run.sub writes. Log lines that trigger a
warning name their source where they copy one.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from evalkit import status as st
from evalkit.benchmarks.mrcr.variants import GYM_PIN
from evalkit.runs.layout import resolve_task_runs
from evalkit.runs.tail import Tail
from helpers.rungen import CANARY, write_mrcr_run, write_running_mrcr_run

REPO = Path(__file__).resolve().parent.parent
HEALTHY = {"n_items": 60, "limit": 40, "prompt_chars": 300, "answer_chars": (200, 600)}


@pytest.fixture
def frozen_clock(monkeypatch):
    """`time.time()` held at one instant for the test (the status command reads its `now`
    there), so rates and walltimes are exact however loaded the machine is."""
    now = float(int(time.time()))
    monkeypatch.setattr(time, "time", lambda: now)
    return now


def running(tmp_path, done, **kwargs):
    now = kwargs.pop("now", time.time())
    options = {**HEALTHY, **kwargs}
    return write_running_mrcr_run(tmp_path, done=done, now=now, **options)


def status_json(run_cli, path, *extra):
    code, out, err = run_cli("status", path, "--format", "json", *extra)
    assert err == ""
    doc = json.loads(out)
    return code, doc["tasks"][0]


def warning_ids(task):
    return {w["id"] for w in task["warnings"]}


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        st_ = path.stat()
        h.update(f"{path}:{st_.st_size}:{st_.st_mtime_ns}".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------------------ states


def test_no_logs_and_no_rollouts_is_starting(tmp_path, run_cli):
    task, _ = running(tmp_path, 0, logs=False)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["done"], doc["expected"]) == (0, "starting", 0, 40)
    assert doc["warnings"] == []
    assert doc["eta_seconds"] is None


def test_server_up_before_the_first_rollout_is_starting(tmp_path, run_cli):
    task, _ = running(tmp_path, 0)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"]) == (0, "starting")
    assert doc["warnings"] == []  # the banner shows the pinned commit already


def test_healthy_canary_in_progress_figures(tmp_path, run_cli, frozen_clock):
    task, _ = running(tmp_path, 25, started_ago=600.0, now=frozen_clock)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["done"], doc["expected"]) == (0, "running", 25, 40)
    assert doc["expected_source"] == "canary ++limit=40"
    assert doc["warnings"] == []
    # 25 rollouts in the 600 s since .job_start_time: 150 an hour, 15 to go -> 360 s.
    assert doc["rate_per_hour"] == pytest.approx(150.0)
    assert doc["eta_seconds"] == pytest.approx(360.0)
    assert doc["walltime_seconds"] == 4 * 3600
    assert doc["walltime_left_seconds"] == pytest.approx(4 * 3600 - 600)
    assert doc["will_finish"] is True
    assert ".job_start_time" in doc["job_start_source"]
    code, out, _ = run_cli("status", task)
    assert code == 0
    assert "nemo_gym.0 (mrcr): running  [" in out
    assert "25/40 (62%)" in out and "ETA 6m00s" in out
    assert "\nstatus: ok\n" in out and "evalkit status " in out.split("next:", 1)[1]


def test_partial_last_line_is_a_write_in_progress(tmp_path, run_cli):
    task, _ = running(tmp_path, 10, partial=True)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["done"]) == (0, "running", 10)
    assert any("partial last line" in n for n in doc["notes"])


def test_finished_run_is_finished_and_clean(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, **HEALTHY)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["done"], doc["expected"]) == (0, "finished", 40, 40)
    assert doc["eta_seconds"] == 0 and doc["warnings"] == []


def test_bundled_canary_shows_the_warning_validate_gives(run_cli):
    """The shipped ++limit=20 canary: 2 of its 20 responses hit the output limit, which
    validate warns about too; the canary gate would hold the full run for a look."""
    run = REPO / "tests/data/runs/mrcr-canary"
    code, doc = status_json(run_cli, run)
    assert (code, doc["state"], doc["done"], doc["expected"]) == (0, "finished", 20, 20)
    assert CANARY["limit"] == 20
    (capped,) = doc["warnings"]
    _, out, _ = run_cli("validate", run, "--format", "json")
    (theirs,) = [c for c in json.loads(out)["checks"] if c["id"] == "output-limit"]
    assert (capped["id"], capped["message"]) == ("output-limit", theirs["message"])
    assert "evalkit validate" in capped["action"]


def test_walltime_over_without_error_is_stopped_unfinished(tmp_path, run_cli):
    task, _ = running(tmp_path, 12, walltime="00:05:00", started_ago=600.0)
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"]) == (0, "stopped_unfinished")
    assert doc["walltime_left_seconds"] == 0
    (stopped,) = doc["warnings"]
    inv = task.parent.name.split("-")[-1]
    assert stopped["id"] == "stopped" and "TIMEOUT is a resume event" in stopped["action"]
    # one task examined: its job alone (nel 0.2.6 `nel resume` resubmits every job of the
    # invocation, executors/slurm/executor.py resume_job per job)
    assert "sbatch run.sub` in nemo_gym.0/" in stopped["action"]
    assert f"nel resume {inv}" not in stopped["action"]
    # run.sub queued its own follow-up at job start: the task is not over yet.
    assert doc["awaiting_resume"] is True


def handler_log(task: Path, tmp_path: Path, prev_state: str, prev_elapsed: str) -> str:
    """What run.sub's auto-resume handler prints when the next job of the chain starts:
    the launcher's own handler (nel 0.2.6 `_generate_autoresume_handler`, default
    max_walltime 120:00:00) run by bash, with `sacct` and `sbatch` stubbed."""
    executor = pytest.importorskip("nemo_evaluator_launcher.executors.slurm.executor")
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir(exist_ok=True)
    answer = f'case "$*" in *State*) echo "{prev_state}" ;; *) echo "{prev_elapsed}" ;; esac'
    (bin_dir / "sacct").write_text(f"#!/bin/sh\n{answer}\n")
    (bin_dir / "sbatch").write_text("#!/bin/sh\necho Submitted batch job 4200000\n")
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    script = tmp_path / "handler.sh"
    script.write_text(executor._generate_autoresume_handler(task, "120:00:00") + "\n")
    (task / ".accumulated_walltime").write_text("0\n")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        ["bash", str(script), "4100000"], capture_output=True, text=True, env=env, check=False
    )
    return run.stdout


# The real handler both times. A TIMEOUT'd previous job that used up the chain's 120
# hours: it ends the chain before it writes a start time. A cancelled previous job: it
# rewrites .job_start_time first, so the task looks freshly started, walltime unspent.
SPENT = ("TIMEOUT", "120:00:00")
CANCELLED = ("CANCELLED by 1000", "00:10:00")


@pytest.mark.parametrize(
    "previous, said",
    [(SPENT, "Maximum total walltime"), (CANCELLED, "'CANCELLED by 1000' state. EXIT!")],
    ids=["walltime-spent", "cancelled"],
)
def test_a_chain_the_follow_up_ended_is_not_awaiting_resume(tmp_path, run_cli, previous, said):
    task, _ = running(tmp_path, 12, walltime="00:05:00", started_ago=600.0)
    (task / "logs/slurm-4199999.log").write_text(handler_log(task, tmp_path, *previous))
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["awaiting_resume"]) == (0, "stopped_unfinished", False)
    (stopped,) = doc["warnings"]
    assert said in stopped["message"] and "resume by hand" in stopped["action"]
    assert "max_walltime" in stopped["action"]


def test_watch_ends_when_the_handler_ended_the_chain(tmp_path, monkeypatch):
    task, _ = running(tmp_path, 12, walltime="04:00:00", started_ago=60.0)
    (task / "logs/slurm-4199999.log").write_text(handler_log(task, tmp_path, *CANCELLED))
    code, frames, err = _watch(task, monkeypatch, lambda frames: None)  # never changes it
    last = frames[-1]
    assert code in (0, 1), err
    assert (last["state"], last["awaiting_resume"]) == ("stopped_unfinished", False)
    assert "CANCELLED by 1000" in last["warnings"][0]["message"]


def test_a_chain_end_from_before_this_job_started_does_not_count(tmp_path, run_cli):
    # An earlier chain ended, then `nel resume` started a new one: its log is older.
    now = time.time()
    task, _ = running(tmp_path, 12, walltime="00:05:00", started_ago=600.0, now=now)
    old = task / "logs/slurm-4000000.log"
    old.write_text(handler_log(task, tmp_path, *SPENT))
    os.utime(old, (now - 7200, now - 7200))
    _, doc = status_json(run_cli, task)
    assert doc["awaiting_resume"] is True


def test_stale_files_with_a_traceback_is_failed(tmp_path, run_cli):
    now = time.time()
    task, _ = running(
        tmp_path,
        12,
        now=now - 3600,
        walltime="10:00:00",
        client_log_extra="Traceback (most recent call last):\nRuntimeError: boom\n",
    )
    code, doc = status_json(run_cli, task, "--stale-after", "600")
    assert (code, doc["state"]) == (1, "failed")
    assert "log-errors" in warning_ids(doc)


# ----------------------------------------------------------------------------- warnings


def test_reasoning_leak_in_the_first_rollouts_says_stop(tmp_path, run_cli):
    task, _ = running(tmp_path, 25, leak_fraction=0.8)
    code, doc = status_json(run_cli, task)
    assert code == 1
    (leak,) = [w for w in doc["warnings"] if w["id"] == "prefix-gate"]
    assert "< 0.25" in leak["message"] and "reasoning" in leak["message"]
    inv = task.parent.name.split("-")[-1]
    # one task examined: its job id, so a sibling task of the invocation keeps running
    assert leak["action"].startswith("stop:") and f"nel kill {inv}.0)" in leak["action"]
    _, out, _ = run_cli("status", task)
    assert "[STOP] prefix-gate" in out and "\nstatus: stop and fix\n" in out
    assert f"  nel kill {inv}.0   (" in out.split("next:", 1)[1]
    _, out, _ = run_cli("status", task.parent)  # the whole invocation: its id
    assert f"  nel kill {inv}   (" in out.split("next:", 1)[1]


def test_status_counts_reasoning_leaks_as_validate_does(tmp_path, run_cli):
    """The prefix-gate rule names the leak count with its threshold; status fills the
    count from its running tally, validate from its one pass: the same sentence."""
    options = {**HEALTHY, "leak_fraction": 0.2}
    full = write_mrcr_run(tmp_path / "done", **options)
    _, out, _ = run_cli("validate", full, "--format", "json")
    gate = {c["id"]: c for c in json.loads(out)["checks"]}["prefix-gate"]
    leak = gate["message"].split("; ", 1)[1]
    assert "responses carry reasoning markup" in leak
    task, _ = running(tmp_path / "growing", 40, **options)
    _, doc = status_json(run_cli, task)
    (warning,) = [w for w in doc["warnings"] if w["id"] == "prefix-gate"]
    assert warning["message"].endswith(leak)


def test_share_checks_wait_for_twenty_rollouts(tmp_path, run_cli):
    task, _ = running(tmp_path, 8, leak_fraction=0.8)
    code, doc = status_json(run_cli, task)
    assert code == 0 and "prefix-gate" not in warning_ids(doc)
    assert any("wait for 20 rollouts (8 so far)" in n for n in doc["notes"])


def test_capped_output_share_says_stop(tmp_path, run_cli):
    task, _ = running(tmp_path, 30, length_fraction=0.5)
    code, doc = status_json(run_cli, task)
    assert code == 1 and "output-limit" in warning_ids(doc)


def test_wrong_gym_pin_in_the_client_log_says_stop(tmp_path, run_cli):
    task, _ = running(tmp_path, 3, logged_commit="0123abc")
    code, doc = status_json(run_cli, task)
    assert code == 1
    (pin,) = [w for w in doc["warnings"] if w["id"] == "gym-pin"]
    assert GYM_PIN in pin["message"] and pin["action"].startswith("stop:")


def test_pre_cmd_failure_says_stop(tmp_path, run_cli):
    extra = "ModuleNotFoundError: No module named 'tiktoken'\n"
    task, _ = running(tmp_path, 0, client_log_extra=extra)
    code, doc = status_json(run_cli, task)
    assert code == 1 and "pre-cmd" in warning_ids(doc)


def test_preemption_and_http_retries_say_let_it_run(tmp_path, run_cli):
    # vLLM V0 scheduler wording (vllm/core/scheduler.py, 0.6.x), which validate accepts.
    server = (
        "WARNING 11-30 10:40:01 scheduler.py:1089 Sequence group 17 is preempted by "
        "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space.\n"
    )
    # NeMo Gym at the MRCR pin, nemo_gym/server_utils.py `request()`.
    client = (
        "[request_retry url=http://127.0.0.1:8000/v1/responses error=ServerDisconnectedError"
        " retry=3 elapsed_s=1.5] Hit 1000 global `ServerDisconnectedError` while querying\n"
    )
    task, _ = running(tmp_path, 25, server_log_extra=server, client_log_extra=client)
    code, doc = status_json(run_cli, task)
    assert code == 0
    assert warning_ids(doc) == {"preemption", "http-retries"}
    assert all(w["action"].startswith("let it run") for w in doc["warnings"])


def test_walltime_that_will_not_suffice_names_the_resume(tmp_path, run_cli, frozen_clock):
    # The full 1M variant (2363 rollouts) at 150 an hour needs about 15.6 h.
    task, _ = running(
        tmp_path, 25, limit=None, walltime="01:00:00", started_ago=600.0, now=frozen_clock
    )
    code, doc = status_json(run_cli, task)
    assert (code, doc["state"], doc["expected"]) == (0, "running", 2363)
    assert doc["will_finish"] is False
    assert doc["eta_seconds"] == pytest.approx((2363 - 25) / 150 * 3600)
    (wall,) = [w for w in doc["warnings"] if w["id"] == "walltime"]
    assert "TIMEOUT is a resume event" in wall["action"]
    assert "afternotok" in wall["action"] and "nel resume" in wall["action"]


def test_conflicting_duplicate_says_stop(tmp_path):
    now = time.time()
    task, pending = running(tmp_path, 25, now=now)
    record = json.loads(pending[0])
    rollouts = task / "artifacts/evaluator_rollouts.jsonl"
    with rollouts.open("ab") as out:
        out.write(pending[0])
        record["reward"] = 1.0 - record["reward"]
        out.write(json.dumps(record).encode() + b"\n")
    (status,) = st.RunMonitor(task).refresh(now)
    assert status.done == 26 and status.stop
    assert "duplicates" in {w.id for w in status.warnings}


# ------------------------------------------------------------------- incremental reading


def test_refresh_reads_only_what_was_appended(tmp_path):
    now = time.time()
    task, pending = running(tmp_path, 5, now=now)
    monitor = st.RunMonitor(task)
    (first,) = monitor.refresh(now)
    tail = monitor.tasks[0].rollouts
    offset = tail.offset
    assert (
        first.done == 5 and offset == (task / "artifacts/evaluator_rollouts.jsonl").stat().st_size
    )
    rollouts = task / "artifacts/evaluator_rollouts.jsonl"
    with rollouts.open("ab") as out:
        out.write(pending[0] + pending[1][:10])  # one whole line, one started
    (second,) = monitor.refresh(now + 60)
    assert second.done == 6 and second.partial_line
    assert tail.offset == offset + len(pending[0])
    with rollouts.open("ab") as out:
        out.write(pending[1][10:])
    (third,) = monitor.refresh(now + 120)
    assert third.done == 7 and not third.partial_line
    # The rate now comes from the refresh history: 2 rollouts in 120 s.
    assert third.rate_per_hour == pytest.approx(60.0)


def test_a_cleared_rollouts_file_is_counted_afresh(tmp_path):
    now = time.time()
    task, pending = running(tmp_path, 10, now=now)
    monitor = st.RunMonitor(task)
    assert monitor.refresh(now)[0].done == 10
    (task / "artifacts/evaluator_rollouts.jsonl").write_bytes(b"".join(pending[:3]))
    assert monitor.refresh(now + 1)[0].done == 3


def test_banner_split_across_refreshes_still_proves_the_pin(tmp_path):
    now = time.time()
    task, _ = running(tmp_path, 3, now=now)
    client = next(task.glob("logs/client-*.log"))
    client.write_text("Installing NeMo Gym on the fly\n=== NeMo Gym commit ===\n")
    monitor = st.RunMonitor(task)
    (first,) = monitor.refresh(now)
    assert "gym-pin" not in {w.id for w in first.warnings}  # banner held back, not judged
    with client.open("a") as out:
        out.write(f"{GYM_PIN}\n")
    (second,) = monitor.refresh(now + 1)
    assert second.warnings == []


def test_tail_hands_out_complete_lines_only(tmp_path):
    path = tmp_path / "f.jsonl"
    tail = Tail(path)
    assert list(tail.lines()) == []  # not there yet
    path.write_bytes(b"a\nb\nhalf")
    assert list(tail.lines()) == [(1, b"a\n"), (2, b"b\n")]
    assert tail.partial_bytes == 4
    with path.open("ab") as out:
        out.write(b"-done\n")
    assert list(tail.lines()) == [(3, b"half-done\n")]
    path.write_bytes(b"new\n")  # shrank: a rerun cleared it
    assert list(tail.lines()) == [(1, b"new\n")] and tail.restarted


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        ("#SBATCH --time 04:00:00", 14400),
        ("#SBATCH --time=1-02:00:00", 93600),
        ("#SBATCH --time 90", 5400),  # minutes, as Slurm reads a bare number
        ("#SBATCH --time 30:15", 1815),
        ("#SBATCH --time 2-12", 216000),
        ("#SBATCH --time soon", None),
        ("#SBATCH --nodes 4", None),
    ],
)
def test_walltime_from_run_sub(line, seconds):
    assert st.walltime_from_run_sub(f"#!/bin/bash\n{line}\n") == seconds


def test_generic_task_reads_nemo_evaluators_progress_file(tmp_path, run_cli):
    task = tmp_path / "inv" / "lm-evaluation-harness.ifeval.0"
    (task / "artifacts").mkdir(parents=True)
    (task / "logs").mkdir()
    (task / "logs" / "client-1.log").write_text("evaluating\n")
    (task / "artifacts" / "progress").write_text("120")  # progress_tracking_interceptor
    code, doc = status_json(run_cli, task, "--expected", "541")
    assert (code, doc["benchmark"], doc["state"], doc["done"], doc["expected"]) == (
        0,
        "generic",
        "running",
        120,
        541,
    )


# ------------------------------------------------------------------------ the contract


def test_status_never_modifies_the_run(tmp_path, run_cli):
    task, _ = running(tmp_path, 25, partial=True, leak_fraction=0.8)
    before = tree_digest(tmp_path)
    run_cli("status", task.parent)
    run_cli("status", task, "--format", "json")
    assert tree_digest(tmp_path) == before


def test_bad_input_is_one_line_and_exit_2(tmp_path, run_cli):
    code, out, err = run_cli("status", tmp_path / "missing")
    assert (code, out) == (2, "") and "no such file" in err and err.count("\n") == 1
    task, _ = running(tmp_path, 5)
    rollouts = task / "artifacts/evaluator_rollouts.jsonl"
    lines = rollouts.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"reward": oops}\n'  # a complete line that is not JSON: not a write in progress
    rollouts.write_bytes(b"".join(lines))
    code, out, err = run_cli("status", task)
    assert code == 2 and f"{rollouts}:3: malformed JSON" in err and "Traceback" not in err
    code, _, err = run_cli("status", task, "--watch", "0")
    assert code == 2 and "positive" in err


def test_json_document_shape(tmp_path, run_cli):
    task, _ = running(tmp_path, 25)
    code, out, _ = run_cli("status", task.parent, "--format", "json")
    doc = json.loads(out)
    assert list(doc) == ["tasks"]
    want = {"task", "state", "done", "expected", "eta_seconds", "walltime_left_seconds"}
    assert want <= set(doc["tasks"][0])
    for w in doc["tasks"][0]["warnings"]:
        assert set(w) == {"id", "message", "action"}


def _watch(task: Path, monkeypatch, step) -> tuple[int, list[dict], str]:
    """`status TASK --watch 0.2 --format json` in this process, its clock the test's: no
    sleep waits, and at each one `step(frames)` sees every frame printed so far and may
    change the run, as a writer would between two refreshes. Bounded by refreshes, not
    by time: a watch that never ends fails at the 200th."""
    from evalkit.cli import main

    out, err = io.StringIO(), io.StringIO()

    def frames() -> list[dict]:
        return [json.loads(line)["tasks"][0] for line in out.getvalue().splitlines() if line]

    def sleep(seconds: float) -> None:
        assert seconds == 0.2
        shown = frames()
        assert len(shown) < 200, "the watch did not end in 200 refreshes"
        step(shown)

    monkeypatch.setattr(time, "sleep", sleep)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["status", str(task), "--watch", "0.2", "--format", "json"])
    return code, frames(), err.getvalue()


def test_watch_sees_rollouts_appended_while_it_runs(tmp_path, monkeypatch):
    task, pending = running(tmp_path, 5)
    rollouts = task / "artifacts/evaluator_rollouts.jsonl"

    def step(frames):
        if len(frames) == 1:
            with rollouts.open("ab") as out:
                for line in pending[:20]:
                    out.write(line)
                    out.flush()
        elif frames[-1]["done"] >= 25:
            # The aggregate file marks the end of the run: the watch stops by itself.
            (task / "artifacts/evaluator_rollouts_aggregate_metrics.json").write_text("[]")

    code, frames, err = _watch(task, monkeypatch, step)
    seen = [f["done"] for f in frames[:-1]]
    assert seen[0] == 5 and seen[-1] == 25 and seen == sorted(seen)
    last = frames[-1]
    assert last["state"] == "finished" and code == 0, err


def test_watch_waits_through_a_timeout_for_the_follow_up_job(tmp_path, monkeypatch):
    task, pending = running(tmp_path, 10, walltime="00:05:00", started_ago=600.0)

    def step(frames):
        if len(frames) == 3:  # several refreshes in the gap, and the watch goes on
            # The follow-up job starts as run.sub does it: a new start time, its id appended.
            (task / ".job_start_time").write_text(f"{int(time.time())}\n")
            with (task / ".slurm_job_id.list").open("a") as ids:
                ids.write("4199999\n")
            with (task / "artifacts/evaluator_rollouts.jsonl").open("ab") as out:
                out.writelines(pending[:5])
        elif frames[-1]["state"] == "running":
            (task / "artifacts/evaluator_rollouts_aggregate_metrics.json").write_text("[]")

    code, frames, err = _watch(task, monkeypatch, step)
    for gap in frames[:3]:
        assert (gap["state"], gap["awaiting_resume"]) == ("stopped_unfinished", True)
    doc = next(f for f in frames[3:] if f["state"] != "stopped_unfinished")
    assert (doc["state"], doc["done"], doc["awaiting_resume"]) == ("running", 15, False)
    last = frames[-1]
    assert last["state"] == "finished" and code == 0, err


def test_resolves_every_path_form(tmp_path):
    task, _ = running(tmp_path, 5)
    for path in (task.parent, task, task / "artifacts"):
        assert [t.name for t in resolve_task_runs(path)] == ["nemo_gym.0"]
