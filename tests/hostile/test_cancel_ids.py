"""Issue 38 item 2: cancel and resume what was asked, with the id the run itself names.

nel 0.2.6 (checked in the test venv's launcher, and by the launcher tests below):
`nel kill ID` takes a job id `<invocation>.<n>` or an invocation id (cli/kill.py);
`nel resume ID` takes an invocation id only and resubmits every job of it (cli/resume.py,
executors/slurm/executor.py resume_job); run.sub holds `NEL_INVOCATION_ID="<16 hex>"`
(executor.py:705) and the invocation directory is `<YYYYmmdd_HHMMSS>-<16 hex>` (executor.py
:111). Runs are copies of tests/data/runs/mrcr-canary (its run.sub names f33fc0132db67489)
made to look doomed the way tests/test_answers.py does (a client log naming another Gym
commit than the pin, so gym-pin says stop).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from evalkit.runs.invocation import invocation_id, job_id

from .conftest import CANARY

CANARY_TASK = CANARY / "nemo_gym.0"
CANARY_ID = "f33fc0132db67489"
CANARY_DIR = f"/lustre/evals/mrcr/20261130_101507-{CANARY_ID}/nemo_gym.0"  # its TASK_DIR
INV = "0a1b2c3d4e5f6789"
PIN = "a431501aa294f3237d472aaf58dd1e5026156ea8"


def task_copy(parent: Path, name: str, run_sub_id: str | None, doomed: bool = True) -> Path:
    """The canary as a running task NAME under PARENT; its run.sub names RUN_SUB_ID (None:
    the line removed) and, as the launcher writes it, the task directory PARENT/NAME on the
    cluster (TASK_DIR, the --output paths)."""
    task = parent / name
    shutil.copytree(CANARY_TASK, task, copy_function=shutil.copy)  # fresh mtimes
    for done in ("evaluator_rollouts_aggregate_metrics.json", "results.yml"):
        (task / "artifacts" / done).unlink()
    (task / "artifacts" / "eval_factory_metrics.json").unlink()
    run_sub = task / "run.sub"
    text = run_sub.read_text().replace(CANARY_DIR, f"/lustre/evals/mrcr/{parent.name}/{name}")
    line = f'NEL_INVOCATION_ID="{CANARY_ID}"\n'
    run_sub.write_text(
        text.replace(line, f'NEL_INVOCATION_ID="{run_sub_id}"\n' if run_sub_id else "")
    )
    if doomed:
        log = task / "logs" / "client-4100007.log"
        log.write_text(log.read_text().replace(PIN, "0123456789abcdef" * 2 + "01234567"))
    return task


def kills(out: str) -> list[str]:
    steps = out.split("\nnext:\n", 1)[1].splitlines()
    return [s.split("   (")[0].strip() for s in steps if s.lstrip().startswith("nel kill")]


def test_one_task_of_two_examined_cancels_its_job_only(tmp_path, run_cli):
    inv = tmp_path / f"20261201_101500-{INV}"
    inv.mkdir()
    task_copy(inv, "nemo_gym.0", INV)
    task_copy(inv, "nemo_gym.1", INV, doomed=False)
    code, out, _ = run_cli("status", inv / "nemo_gym.0")
    assert code == 1
    assert kills(out) == [f"nel kill {INV}.0"]  # not the invocation: nemo_gym.1 is healthy


def test_the_whole_invocation_examined_cancels_the_invocation(tmp_path, run_cli):
    inv = tmp_path / f"20261201_101500-{INV}"
    inv.mkdir()
    task_copy(inv, "nemo_gym.0", INV)
    task_copy(inv, "nemo_gym.1", INV)
    _, out, _ = run_cli("status", inv)
    assert kills(out) == [f"nel kill {INV}"]
    _, out, _ = run_cli("status", inv / "nemo_gym.1")
    assert kills(out) == [f"nel kill {INV}.1"]


def test_a_task_dir_copied_alone_takes_its_id_from_run_sub(tmp_path, run_cli):
    task = task_copy(tmp_path, "nemo_gym.3", INV)
    _, out, _ = run_cli("status", task)
    assert kills(out) == [f"nel kill {INV}.3"]


def test_a_loose_folder_name_names_no_invocation(tmp_path, run_cli):
    """`eval-20261130/` and an 8-16 hex tail are not the launcher's folder name."""
    for folder in ("eval-20261130", "run-deadbeef01", "20261130_101500-deadbeef"):
        parent = tmp_path / folder
        parent.mkdir()
        task = task_copy(parent, "nemo_gym.0", None)
        assert invocation_id(task) is None
        _, out, _ = run_cli("status", task)
        # a placeholder that fails as an unknown id when pasted, never a redirection
        assert kills(out) == ["nel kill INVOCATION_ID.0"]
        assert "<invocation id>" not in out


def test_the_run_sub_line_is_read_as_the_launcher_writes_it(tmp_path):
    task = tmp_path / "20261201_101500-00000000000000aa" / "nemo_gym.2"
    task.mkdir(parents=True)
    assert invocation_id(task) == "00000000000000aa"  # the folder, no script
    for hostile in ('NEL_INVOCATION_ID="x; rm -rf ~"', 'NEL_INVOCATION_ID="ABCDEF"',
                    "echo NEL_INVOCATION_ID=0123456789abcdef"):  # fmt: skip
        (task / "run.sub").write_text(f"#!/bin/bash\n{hostile}\n")
        assert invocation_id(task) == "00000000000000aa"
    (task / "run.sub").write_text(f'#!/bin/bash\nNEL_INVOCATION_ID="{INV}"\n')
    assert invocation_id(task) == INV  # the script wins: a copy keeps its id
    assert job_id(task, INV) == f"{INV}.2"


def test_one_task_resume_is_its_own_sbatch(tmp_path, run_cli):
    """Stopped (stale, no follow-up queued): one task examined resubmits its job alone;
    the whole invocation, every task stopped, is `nel resume INV`."""
    inv = tmp_path / f"20261201_101500-{INV}"
    inv.mkdir()
    tasks = [task_copy(inv, f"nemo_gym.{i}", INV, doomed=False) for i in (0, 1)]
    for task in tasks:
        for path in task.rglob("*"):
            os.utime(path, (1, 1))  # nothing written for decades: stopped
    code, out, _ = run_cli("status", tasks[0])
    # the premise, not a precondition: a copy not read as stopped is the bug this guards
    assert "stopped" in out, out
    steps = out.split("\nnext:\n", 1)[1]
    assert f"nel resume {INV}" not in steps
    assert f"(cd {tasks[0]} && rm -f .slurm_job_id.list .accumulated_walltime && sbatch" in steps
    _, out, _ = run_cli("status", inv)
    assert f"nel resume {INV}   (" in out.split("\nnext:\n", 1)[1]


# ------------------------------------------------------------- against the real launcher


@pytest.mark.launcher
def test_the_real_run_sub_and_folder_name_give_the_id(tmp_path):
    """The real nel 0.2.6 dry-run's script: its NEL_INVOCATION_ID line and the task
    directory it names (`<output_dir>/<stamp>-<id>/<task>.<n>`) each give the same id."""
    from fixtures.gym import mrcr_template as tpl
    from helpers.nel import dry_run

    result = dry_run(tpl.TEMPLATE, tpl.FILLED)
    (script,) = result.scripts
    script = script.split("----------- Secrets (redacted)")[0]
    (said,) = re.findall(r'^NEL_INVOCATION_ID="([0-9a-f]{16})"$', script, re.M)
    (task_dir,) = re.findall(r'^TASK_DIR="([^"]+)"$', script, re.M)
    local = tmp_path / Path(task_dir).relative_to(Path(task_dir).anchor)
    local.mkdir(parents=True)
    assert invocation_id(local) == said  # from the folder name alone
    (local / "run.sub").write_text(script)
    (tmp_path / "alone").mkdir()
    shutil.copy(local / "run.sub", tmp_path / "alone" / "run.sub")
    assert invocation_id(tmp_path / "alone") == said  # from the script alone
    assert job_id(local, said) == f"{said}.0"


@pytest.mark.launcher
def test_the_real_resume_takes_an_invocation_id_only(nel_launcher, tmp_path):
    result = nel_launcher.run(["resume", "--help"], dict(os.environ), str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "Invocation ID to resume" in result.stdout
    assert "job" not in result.stdout.lower().split("positional", 1)[-1].split("options")[0]


def test_a_hostile_recorded_task_dir_is_data(tmp_path):
    """TASK_DIR is read as a path, never run: only its `<task>.<n>` tail gives the index,
    and the resubmit words quote it as one shell word."""
    from evalkit.runs.invocation import recorded, task_index
    from evalkit.runs.layout import TaskRun
    from evalkit.status.cancel import resume_words

    copy = tmp_path / "run"
    copy.mkdir()
    where = "/lustre/$(touch pwned)/x\u202e;y/nemo_gym.4"
    (copy / "run.sub").write_text(f'#!/bin/bash\nTASK_DIR="{where}"\nNEL_INVOCATION_ID="{INV}"\n')
    assert recorded(copy).task_dir == where and task_index(copy) == 4
    assert job_id(copy, invocation_id(copy)) == f"{INV}.4"
    words = resume_words(TaskRun("run", copy, copy / "artifacts", None))
    assert "\u202e" not in words and "'/lustre/$(touch pwned)/x\\u202e;y/nemo_gym.4'" in words
    (copy / "run.sub").write_text('#!/bin/bash\nTASK_DIR="/lustre/a/b\nc.4"\n')
    assert task_index(copy) is None  # a value split across lines is not the launcher's
