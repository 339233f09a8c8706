"""`evalkit status --sacct/--squeue`: Slurm's own view beside the task's logs, and bad
input (a malformed sacct file) as one line and exit 2."""

from __future__ import annotations

import pytest

from helpers.failure_logs import dead_task, signature_logs, triage_of
from helpers.limits import limits_row

# ------------------------------------------------------------------ SLURM's view
# Shapes from Slurm's sacct(1) and squeue(1) manual pages (`-P` joins fields with |, the
# default table is padded columns under a line of dashes, a cut value ends in +); the
# rows themselves are made up.
SACCT_P = """JobID|State|ExitCode|Elapsed
4100001|TIMEOUT|0:0|04:00:12
4100001.batch|CANCELLED|0:15|04:00:14
4100001.extern|COMPLETED|0:0|04:00:12
4100001.0|CANCELLED|0:15|04:00:10
"""
SACCT_TABLE = """JobID           JobName  Partition    Account  AllocCPUS      State ExitCode
------------ ---------- ---------- ---------- ---------- ---------- --------
4100001      x-nemo-ev+      batch          x        128 OUT_OF_ME+    0:125
4100001.bat+      batch                     x        128 OUT_OF_ME+    0:125
4100001.ext+     extern                     x        128  COMPLETED      0:0
"""
SQUEUE = """             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
           4100002     batch x-nemo-e  evalkit PD       0:00      4 (Dependency)
"""


def test_sacct_agreeing_with_the_logs_adds_its_line(tmp_path, cli):
    logs = signature_logs("slurm-time-limit")
    # run.sub's auto-resume handler queued the follow-up: sbatch's own answer (slurm
    # src/sbatch/sbatch.c, `Submitted batch job %u`) ties job 4100002 to this task.
    logs["slurm-4100001.log"] = "Submitted batch job 4100002\n" + logs["slurm-4100001.log"]
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    (tmp_path / "sacct.txt").write_text(SACCT_P)
    (tmp_path / "squeue.txt").write_text(SQUEUE)
    _, doc = triage_of(
        cli, task, "--sacct", tmp_path / "sacct.txt", "--squeue", tmp_path / "squeue.txt"
    )
    slurm = doc["triage"]["slurm"]
    assert slurm[0].startswith(
        "job 4100001: TIMEOUT exit 0:0 elapsed 04:00:12 (sacct, sacct.txt:2)"
    )
    assert not any(line.startswith("disagree") for line in slurm)
    assert any("4100002 is PENDING (Dependency): the follow-up run.sub queued" in s for s in slurm)


def test_sacct_names_the_cause_the_logs_lack(tmp_path, cli):
    task = dead_task(tmp_path, {"client-4100001.log": "starting\n"}, jobs=["4100001"])
    (tmp_path / "sacct.txt").write_text(SACCT_TABLE)
    _, doc = triage_of(cli, task, "--sacct", tmp_path / "sacct.txt")
    cause = doc["triage"]["cause"]
    assert cause["id"] == "slurm-host-oom"
    assert cause["evidence"]["file"] == "sacct.txt" and cause["evidence"]["line"] == 3
    assert cause["fix"][0]["key"] == "execution.sbatch_extra_flags.mem"


def test_sacct_disagreeing_with_the_logs_says_so(tmp_path, cli):
    task = dead_task(tmp_path, signature_logs("vllm-kv-cache-too-small"), jobs=["4100001"])
    (tmp_path / "sacct.txt").write_text(SACCT_P)
    _, doc = triage_of(cli, task, "--sacct", tmp_path / "sacct.txt")
    (disagree,) = [s for s in doc["triage"]["slurm"] if s.startswith("disagree")]
    assert "ended TIMEOUT, the logs show vllm-kv-cache-too-small" in disagree
    assert doc["triage"]["cause"]["id"] == "vllm-kv-cache-too-small"


@pytest.mark.parametrize(
    "text, where",
    [
        ("JobID|State|ExitCode\n4100001|TIMEOUT\n", ":2:"),
        ("JobID|State|ExitCode\n4100001|EXPLODED|0:0\n", ":2:"),
        ("JobID|State|ExitCode\nabc|FAILED|1:0\n", ":2:"),
        ("JobID|State|ExitCode\n4100001|FAILED|one\n", ":2:"),
        ("\x00\x01binary", ""),
        ("JobID State ExitCode\n------- -----\n4100001 FAILED 1:0\n", ":2:"),
        ("JobID|ExitCode\n4100001|0:0\n4100002|1:0\n", ":1:"),  # no State: the header's line
    ],
    ids=["short-row", "bad-state", "bad-id", "bad-exit", "binary", "dashes-short", "no-state"],
)
def test_malformed_sacct_is_one_line_and_exit_2(tmp_path, run_cli, text, where):
    task = dead_task(tmp_path, signature_logs("slurm-time-limit"), jobs=["4100001"])
    bad = tmp_path / "sacct.txt"
    bad.write_text(text)
    before = bad.read_bytes()
    code, out, err = run_cli("status", task, "--sacct", bad)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "sacct.txt" in lines[0] and where in lines[0]
    assert "Traceback" not in err and bad.read_bytes() == before


def test_slurm_tables_parse_the_cut_values():
    import tempfile
    from pathlib import Path

    from evalkit.checks.failures.slurmtext import read_sacct, read_squeue

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "t.txt"
        p.write_text(SACCT_TABLE)
        rows = read_sacct(p)
        assert [(r.job, r.step, r.base_state, r.exit_code) for r in rows] == [
            ("4100001", None, "OUT_OF_MEMORY", "0:125"),
            ("4100001", "bat", "OUT_OF_MEMORY", "0:125"),
            ("4100001", "ext", "COMPLETED", "0:0"),
        ]
        # a narrower State column (`--format=State%8`): COMPLET+ could be COMPLETED or
        # COMPLETING, so it is left as cut rather than guessed
        p.write_text(SACCT_TABLE.replace("OUT_OF_ME+", "  COMPLET+"))
        assert {r.base_state for r in read_sacct(p)} == {"COMPLET", "COMPLETED"}
        p.write_text(SQUEUE)
        (row,) = read_squeue(p)
        assert (row.job, row.state, row.reason) == ("4100002", "PENDING", "Dependency")


def test_the_new_signatures_are_named():
    """disk-full, enroot-registry-auth and rate-limited: the corpus cases
    (tests/test_failures_corpus.py) place their real lines in task directories."""
    from evalkit.checks.failures import BY_ID

    assert {"disk-full", "enroot-registry-auth", "rate-limited"} <= set(BY_ID)


def test_a_pending_job_not_tied_to_the_task_is_not_its_follow_up(tmp_path, cli):
    """issue 48: another invocation's pending job (same account, same task name) is not
    this task's follow-up; only a job id or run.sub's sbatch answer ties a row to it."""
    task = dead_task(tmp_path, signature_logs("slurm-time-limit"), jobs=["4100001"])
    (tmp_path / "squeue.txt").write_text(SQUEUE)
    _, doc = triage_of(cli, task, "--squeue", tmp_path / "squeue.txt")
    slurm = doc["triage"]["slurm"]
    assert not any("4100002" in line for line in slurm)
    assert any(line.startswith("1 other pending job(s)") for line in slurm)


def test_sacct_rows_of_a_task_without_job_ids_are_not_adopted(tmp_path, cli):
    """issue 48: without the task's marker files and slurm logs, the highest job id in
    the sacct file is not taken as the task's (it names no cause)."""
    task = dead_task(tmp_path, {"client-4100001.log": "starting\n"})
    (tmp_path / "sacct.txt").write_text(SACCT_TABLE)
    _, doc = triage_of(cli, task, "--sacct", tmp_path / "sacct.txt")
    assert doc["triage"]["cause"] is None or doc["triage"]["cause"]["id"] != "slurm-host-oom"
    assert any("no job ids of its own" in line for line in doc["triage"]["slurm"])


def test_sacct_names_the_cause_an_unrecognised_log_only_quotes(tmp_path, cli):
    """A log with an error line no signature knows, and sacct's OUT_OF_MEMORY for the
    job: Slurm's state names the cause; the quoted line stays as history."""
    logs = {"client-4100001.log": "RuntimeError: worker pool broke\n"}
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    (tmp_path / "sacct.txt").write_text(SACCT_TABLE)
    _, doc = triage_of(cli, task, "--sacct", tmp_path / "sacct.txt")
    assert doc["triage"]["cause"]["id"] == "slurm-host-oom"
    assert doc["triage"]["also_seen"][0]["id"] == "not-recognised"


# squeue's reasons for a pending follow-up (squeue(1), JOB REASON CODES): Dependency
# waits for the job before it; DependencyNeverSatisfied can never start; any other
# reason is ordinary queueing.
@pytest.mark.parametrize(
    "reason, says",
    [
        ("Dependency", "4100002 is PENDING (Dependency): the follow-up run.sub queued"),
        ("DependencyNeverSatisfied", "it will never start; cancel it: scancel 4100002"),
        ("Priority", "4100002 is PENDING (Priority): queued, not failed"),
        ("Resources", "4100002 is PENDING (Resources): queued, not failed"),
        ("BeginTime", "4100002 is PENDING (BeginTime): queued, not failed"),
    ],
)
def test_a_pending_follow_up_is_read_by_its_reason(tmp_path, cli, reason, says):
    logs = signature_logs("slurm-time-limit")
    logs["slurm-4100001.log"] = "Submitted batch job 4100002\n" + logs["slurm-4100001.log"]
    task = dead_task(tmp_path, logs, jobs=["4100001"])
    (tmp_path / "squeue.txt").write_text(SQUEUE.replace("(Dependency)", f"({reason})"))
    _, doc = triage_of(cli, task, "--squeue", tmp_path / "squeue.txt")
    (line,) = [s for s in doc["triage"]["slurm"] if "4100002" in s]
    assert says in line
    assert ("scancel" in line) is (reason == "DependencyNeverSatisfied")


def test_sacct_minus_p_ends_each_line_with_a_bar(tmp_path):
    """sacct(1): `-p` is `-P` with a | after the last field too; the rows are the same."""
    from evalkit.checks.failures.slurmtext import read_sacct

    p = tmp_path / "sacct.txt"
    p.write_text(SACCT_P)
    plain = read_sacct(p)
    p.write_text("".join(f"{line}|\n" for line in SACCT_P.splitlines()))
    assert read_sacct(p) == plain and len(plain) == 4


def test_a_slurm_file_is_read_up_to_its_documented_limit_and_no_further(tmp_path, run_cli):
    from evalkit.checks.failures.slurmtext import read_sacct

    limit = int(limits_row("`status --sacct`").split()[0]) * 1024 * 1024
    p = tmp_path / "sacct.txt"
    body = SACCT_P.encode()
    p.write_bytes(body + b"\n" * (limit - len(body)))  # blank lines pad it: ignored
    assert len(read_sacct(p)) == 4
    p.write_bytes(body + b"\n" * (limit - len(body) + 1))
    task = dead_task(tmp_path / "run", {"client-4100001.log": "starting\n"}, jobs=["4100001"])
    code, out, err = run_cli("status", task, "--sacct", p)
    assert code == 2 and out == "" and "sacct.txt" in err and len(err.splitlines()) == 1


def test_sacct_without_its_header_is_read_in_the_documented_field_order(tmp_path):
    """references/failures.md asks for `sacct -j ID -P --format=JobID,State,ExitCode,
    Elapsed`; with -n (no header) the fields are taken in that order."""
    from evalkit.checks.failures.slurmtext import read_sacct

    p = tmp_path / "sacct.txt"
    p.write_text(SACCT_P)
    with_header = read_sacct(p)
    p.write_text(SACCT_P.split("\n", 1)[1])
    rows = read_sacct(p)
    assert [(r.job, r.step, r.state, r.exit_code, r.elapsed) for r in rows] == [
        (r.job, r.step, r.state, r.exit_code, r.elapsed) for r in with_header
    ]
    assert rows[0].state == "TIMEOUT" and rows[0].elapsed == "04:00:12"


def test_sacct_minus_p_without_its_header_drops_the_trailing_bar(tmp_path):
    """`sacct -p -n --format=JobID,State,ExitCode,Elapsed`: no header, and each row ends
    with the | that -p adds."""
    from evalkit.checks.failures.slurmtext import read_sacct

    p = tmp_path / "sacct.txt"
    p.write_text(SACCT_P.split("\n", 1)[1])
    plain = read_sacct(p)
    p.write_text("".join(f"{line}|\n" for line in SACCT_P.splitlines()[1:]))
    assert [(r.job, r.state, r.elapsed) for r in read_sacct(p)] == [
        (r.job, r.state, r.elapsed) for r in plain
    ]


def test_sacct_rows_of_other_jobs_only_say_so_with_the_tasks_last_five_jobs(tmp_path, cli):
    jobs = [f"410000{n}" for n in range(1, 7)]
    logs = {}
    for job in jobs:
        logs.update(signature_logs("slurm-preempted", job))
    task = dead_task(tmp_path, logs, jobs=jobs)
    (tmp_path / "sacct.txt").write_text(SACCT_P.replace("4100001", "4200001"))
    _, doc = triage_of(cli, task, "--sacct", tmp_path / "sacct.txt")
    assert doc["triage"]["slurm"] == [
        "none of the jobs given is this task's (its jobs: 4100002, 4100003, 4100004, "
        "4100005, 4100006)"
    ]
