"""Each command's text ends with the answer: what it checked (by rule name), what it already
ran, and the next step as commands carrying the run's own values (issue 32, item 1).

Runs are the bundled fixtures: tests/data/runs/mrcr-canary (a finished MRCR canary) and
tests/data/suite (a baseline/candidate pair; tests/data/suite/PROVENANCE.md says how both
were made). A doomed run is the canary copied under an invocation directory named as nel
0.2.6 names it (`<timestamp>-<16 hex invocation id>`, executors/slurm/executor.py), cut
back to running (no aggregate, results or metrics yet) and with its client log naming
another Gym commit than the pin: the gym-pin check then says stop.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from helpers.bundled import GPQA, MRCR, task_dir

DATA = Path(__file__).resolve().parent / "data"
CANARY = DATA / "runs" / "mrcr-canary" / "nemo_gym.0"
SUITE = DATA / "suite"
INVOCATION = "0a1b2c3d4e5f6789"
CANARY_INVOCATION = "f33fc0132db67489"  # NEL_INVOCATION_ID in the canary's run.sub
PIN = "a431501aa294f3237d472aaf58dd1e5026156ea8"
FAST = ("--bootstrap", "200")


def copy_task(invocation_dir: Path, name: str, *, doomed: bool) -> Path:
    """The canary as task NAME of a run still being written (fresh mtimes: copy, not
    copy2, so the task is not stale)."""
    task = invocation_dir / name
    shutil.copytree(CANARY, task, copy_function=shutil.copy)
    for finished in (
        "evaluator_rollouts_aggregate_metrics.json",
        "results.yml",
        "eval_factory_metrics.json",
    ):
        (task / "artifacts" / finished).unlink()
    # as the launcher writes it: run.sub names the invocation and the task directory it
    # is written for (TASK_DIR, the --output paths, the job name)
    run_sub = task / "run.sub"
    text = run_sub.read_text().replace(CANARY_INVOCATION, INVOCATION)
    run_sub.write_text(text.replace("nemo_gym.0", name))
    if doomed:
        log = task / "logs" / "client-4100007.log"
        log.write_text(log.read_text().replace(PIN, "0123456789abcdef" * 2 + "01234567"))
    return task


@pytest.fixture
def invocation(tmp_path):
    path = tmp_path / f"20261201_101500-{INVOCATION}"
    path.mkdir()
    return path


def after(out: str, marker: str) -> list[str]:
    return out.split(marker, 1)[1].strip("\n").splitlines()


# ---------------------------------------------------------------------------- status


def test_status_on_a_doomed_run_prints_the_cancel_command_and_the_change(invocation, run_cli):
    task = copy_task(invocation, "nemo_gym.0", doomed=True)
    code, out, err = run_cli("status", invocation)
    assert (code, err) == (1, "")
    assert "[STOP] gym-pin" in out
    checked = [line for line in out.splitlines() if line.startswith("checked (")]
    assert checked and "gym-pin" in checked[0] and "prefix-gate" in checked[0]
    steps = after(out, "\nnext:\n")
    assert steps[0] == (
        f"  nel kill {INVOCATION}   (on the machine that ran `nel run`; cancels the Slurm job)"
    )
    # a gym run is launched through the pinned wrapper, which passes `kill ID` to nel 0.2.6
    assert (
        steps[1]
        == f"  (the same through the pinned launcher: scripts/nel-gym.sh kill {INVOCATION})"
    )
    assert steps[2].startswith("  change before relaunching: fix gym-pin: Set ")
    assert "install_on_the_fly.commit" in steps[2]
    assert steps[2].endswith("(see references/run-validation.md#gym-pin)")
    assert "relaunch" in steps[3]
    assert task.is_dir()


def test_one_doomed_task_of_several_cancels_only_its_job(invocation, run_cli):
    copy_task(invocation, "nemo_gym.0", doomed=False)
    copy_task(invocation, "nemo_gym.1", doomed=True)
    code, out, _ = run_cli("status", invocation)
    assert code == 1
    steps = after(out, "\nnext:\n")
    kills = [s for s in steps if s.lstrip().startswith("nel kill")]
    # job id <invocation>.<n> for task directory <task>.<n>: the healthy task keeps running
    assert kills == [
        f"  nel kill {INVOCATION}.1   (on the machine that ran `nel run`; cancels the Slurm job)"
    ]
    assert any(s.startswith("  evalkit status ") and "nemo_gym.0" in s for s in steps)


def test_a_task_copied_under_another_name_keeps_its_job_id(tmp_path, run_cli):
    """Copied off the cluster as `run/`: the ids come from run.sub's NEL_INVOCATION_ID and
    the task directory it records (TASK_DIR, --output: `.../<task>.<n>`), not the name."""
    invocation = tmp_path / f"20261201_101500-{INVOCATION}"
    invocation.mkdir()
    task = copy_task(invocation, "nemo_gym.3", doomed=True)
    copy = tmp_path / "copies" / "run"
    copy.parent.mkdir()
    task.rename(copy)
    code, out, _ = run_cli("status", copy)
    assert code == 1 and "[STOP] gym-pin" in out
    steps = after(out, "\nnext:\n")
    assert steps[0] == (
        f"  nel kill {INVOCATION}.3   (on the machine that ran `nel run`; cancels the Slurm job)"
    )
    assert "JOB_ID" not in out and "INVOCATION_ID" not in out
    _, out, _ = run_cli("status", copy, "--format", "json")
    (doc,) = json.loads(out)["tasks"]
    assert f"nel kill {INVOCATION}.3)" in next(w["action"] for w in doc["warnings"])


def test_a_real_run_sub_names_the_job_of_a_renamed_copy(tmp_path):
    """run.sub as nel 0.2.6's dry-run renders it (tests/data/suite/PROVENANCE.md), in a
    folder whose name says nothing (`run`) or says the wrong index (`gpqa.7`)."""
    from evalkit.runs.invocation import invocation_id, job_label, recorded, task_index
    from evalkit.runs.layout import TaskRun
    from evalkit.status.cancel import kill_words, resume_words

    source = task_dir("baseline", GPQA)
    inv = source.parent.name.split("-")[-1]
    for name in ("run", "gpqa.7"):
        copy = tmp_path / name
        copy.mkdir()
        shutil.copy(source / "run.sub", copy / "run.sub")
        assert (invocation_id(copy), task_index(copy)) == (inv, 0)
        assert job_label(copy, inv) == f"{inv}.0"
        task = TaskRun(name, copy, copy / "artifacts", None)
        assert kill_words(task) == f"nel kill {inv}.0"
        assert recorded(copy).task_dir.endswith(f"{source.parent.name}/{GPQA}")
        assert f"on the cluster {recorded(copy).task_dir}," in resume_words(task)


@pytest.mark.launcher  # renders run.sub with the real nel 0.2.6
def test_the_launchers_own_run_sub_names_each_tasks_job(tmp_path):
    """Every task's run.sub of the AA template (seven tasks), as `nel run --dry-run`
    renders it, copied alone as `run/`: its job is `<NEL_INVOCATION_ID>.<its index>`."""
    import re

    from evalkit.runs.invocation import job_label
    from helpers.nel import blank_paths, dry_run

    config = Path(__file__).resolve().parents[1] / "recipes" / "examples" / "example_eval.yaml"
    overrides = {p: "x" for p in blank_paths(config)}
    overrides.update({"execution.hostname": "h", "execution.output_dir": "/lustre/out"})
    result = dry_run(config, overrides)
    assert result.returncode == 0, result.stderr[-2000:]
    # the run.sub of each task (auto_export adds an export.sbatch inside each)
    scripts = [s for s in result.scripts if "\nTASK_DIR=" in s]
    assert len(scripts) == 7
    for index, script in enumerate(scripts):
        (inv,) = re.findall(r'^NEL_INVOCATION_ID="([0-9a-f]{16})"$', script, re.M)
        copy = tmp_path / str(index) / "run"
        copy.mkdir(parents=True)
        (copy / "run.sub").write_text(script)
        assert job_label(copy, inv) == f"{inv}.{index}"


def test_a_placeholder_says_where_to_find_the_id(tmp_path):
    """No run.sub (or one without the lines) and a name that says nothing: the command
    keeps a placeholder and says where its value is found."""
    from evalkit.runs.layout import TaskRun
    from evalkit.status.cancel import kill_words

    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "run.sub").write_text("#!/bin/bash\nsrun true\n")
    words = kill_words(TaskRun("run", copy, copy / "artifacts", None))
    assert words.startswith("nel kill JOB_ID; ")
    assert "`nel ls runs`" in words and "`<task>.<n>`" in words
    named = tmp_path / "simple_evals.gpqa_diamond.2"
    named.mkdir()
    words = kill_words(TaskRun("gpqa", named, named / "artifacts", None))
    assert words.startswith("nel kill INVOCATION_ID.2; ") and "`nel ls runs`" in words


@pytest.mark.launcher  # runs the real nel 0.2.6
def test_the_cancel_command_is_the_real_launchers(nel_launcher, tmp_path):
    """nel 0.2.6 has `kill` with one positional ID: a job id or an invocation id."""
    result = nel_launcher.run(["kill", "--help"], dict(os.environ), str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "invocation ID" in result.stdout and "aefc4819.0" in result.stdout


def test_status_on_a_finished_run_says_validate_next(run_cli):
    code, out, _ = run_cli("status", CANARY)
    assert code == 0
    assert after(out, "\nnext:\n") == [f"  evalkit validate {CANARY}"]


# -------------------------------------------------------------------------- validate


def test_validate_ends_with_its_checks_and_the_commands_for_this_run(run_cli):
    code, out, _ = run_cli("validate", CANARY)
    assert code == 0
    tail = after(out, "\nverdict: valid\n")
    assert tail[0].startswith("checked (12 checks): rollout-count, duplicates, truncation")
    assert tail[1:] == [
        "next:",
        "  read output-limit before quoting the score "
        "(see references/run-validation.md#output-limit)",
        f"  evalkit score {CANARY}",
        f"  evalkit compare BASELINE_RUN {CANARY} --margin 1.0 (against its baseline)",
    ]


def test_validate_names_the_fix_per_failed_check_and_the_resume(invocation, run_cli):
    """No aggregate file yet: incomplete, so the fix is to resume this very invocation."""
    task = invocation / "nemo_gym.0"
    shutil.copytree(CANARY, task)
    (task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json").unlink()
    code, out, _ = run_cli("validate", task)
    assert code == 1 and "\nverdict: incomplete\n" in out
    steps = after(out, "\nnext:\n")
    assert steps[0].startswith("  fix aggregate-agreement: Resume a run that did not aggregate")
    assert steps[0].endswith("(see references/run-validation.md#aggregate-agreement)")
    # nel 0.2.6 `nel resume` takes only an invocation id and resubmits every job of it
    # (cli/resume.py); one task examined is resubmitted alone, as resume_job does per job
    # (executors/slurm/executor.py).
    assert steps[1] == (
        f"  (cd {task} && rm -f .slurm_job_id.list .accumulated_walltime && sbatch run.sub)"
        "   (on the cluster: resubmits nemo_gym.0's job alone, as `nel resume` does per job)"
    )
    assert steps[2] == f"  then: evalkit validate {task}"
    # the whole invocation examined, every task of it incomplete: the invocation's resume,
    # with the id its run.sub names
    code, out, _ = run_cli("validate", invocation)
    steps = after(out, "\nnext:\n")
    assert steps[1] == (
        f"  nel resume {CANARY_INVOCATION}   (on the machine that ran `nel run`; every job of it)"
    )


# --------------------------------------------------------------------------- compare


def test_compare_says_what_it_already_ran_and_the_rerun(run_cli):
    base, cand = SUITE / "baseline", SUITE / "candidate"
    code, out, _ = run_cli("compare", base, cand, *FAST)
    assert code == 1  # inconclusive
    ran = [line for line in out.splitlines() if line.startswith("already ran: ")]
    assert ran == [
        "already ran: validate on both sides (2 task(s) each), its aggregate-agreement check "
        "tying MRCR's aggregate file to the rewards; score from the rollouts for "
        "mrcr (90 items paired by content); score from the harness's per-item files for "
        "gpqa (198 items paired by id and prompt, failures by cause) (no need to run them again)"
    ]
    assert any(
        line.startswith("checked mrcr: validate base valid, cand valid; trust checks")
        for line in out.splitlines()
    )
    assert out.rstrip().endswith(f"then: evalkit compare {base} {cand} --margin 1")


def test_compare_not_comparable_names_the_rerun_per_failed_trust_check(run_cli):
    base = task_dir("baseline", MRCR)
    code, out, _ = run_cli("compare", base, base, *FAST, "--margin", "0.5")
    assert code == 1
    steps = after(out, "\nnext:\n")
    assert (
        "  mrcr: response-reuse: the candidate reuses the baseline's responses: rerun the "
        "candidate into a fresh execution.output_dir (no cache or rollouts carried over) "
        "(see references/compare.md#trust-checks)" in steps
    )
    assert steps[-1] == f"  then: evalkit compare {base} {base} --margin 0.5"


def test_compare_markdown_is_a_release_note_with_each_scores_source(run_cli):
    base, cand = SUITE / "baseline", SUITE / "candidate"
    code, out, _ = run_cli("compare", base, cand, *FAST, "--margin", "1", "--format", "markdown")
    assert code == 1
    assert out.startswith("## Accuracy: candidate vs baseline: inconclusive\n")
    for side in (base, cand):
        rollouts = task_dir(side.name, MRCR) / "artifacts" / "evaluator_rollouts.jsonl"
        items = task_dir(side.name, GPQA) / "artifacts" / "gpqa_diamond"
        assert f"in `{rollouts}`" in out
        # GPQA is scored from the harness's own per-item rows; the results.yml key is named
        assert "(gpqa_diamond_score_micro in results.yml)` in " in out
        assert f"in `{items / 'cache' / 'cache.sqlite' / 'cache.db'}`" in out
    assert "- mrcr baseline 73.18: key `reward (mean per item" in out
    assert "- mrcr candidate 65.58: key `reward (mean per item" in out
    assert "- mrcr: baseline valid, candidate valid" in out
    assert "- mrcr [ok] response-reuse: " in out
    assert "- mrcr: **inconclusive**, delta -7.60 points, 95% CI [-15.94, +0.74], MDE 11.76" in out
    assert (
        "| mrcr | 73.18 | 65.58 | -7.60 | [-15.94, +0.74] | 11.76 | 1.00 | **inconclusive** |"
        in out
    )
    next_section = out.split("### Next\n", 1)[1]
    assert f"then: evalkit compare {base} {cand} --margin 1" in next_section


def test_compare_json_rows_carry_the_score_source(run_cli):
    base, cand = SUITE / "baseline", SUITE / "candidate"
    _, out, _ = run_cli("compare", base, cand, *FAST, "--format", "json")
    rows = {row["benchmark"]: row for row in json.loads(out)["tasks"]}
    artifacts = task_dir(cand.name, GPQA) / "artifacts"
    assert rows["gpqa"]["source"]["cand"] == {
        "file": str(artifacts / "gpqa_diamond" / "cache" / "cache.sqlite" / "cache.db"),
        "key": "score per item, mean of scored and failed items "
        "(gpqa_diamond_score_micro in results.yml)",
    }
    assert rows["mrcr"]["source"]["base"]["file"].endswith("evaluator_rollouts.jsonl")


# ------------------------------------------------------------------------- preflight


def test_preflight_ends_with_its_rule_count_and_the_fix_command(tmp_path, run_cli):
    """The shipped MRCR template with its walltime unquoted: NEL202 has a safe fix."""
    template = Path(__file__).resolve().parent.parent / "recipes/examples/gym/example_mrcr.yaml"
    config = tmp_path / "mrcr.yaml"
    text = template.read_text()
    assert 'walltime: "04:00:00"' in text
    config.write_text(text.replace('walltime: "04:00:00"', "walltime: 10:00:00"))
    code, out, _ = run_cli("preflight", config)
    assert code == 1
    tail = after(out, " warning(s)\n")
    assert tail[0].startswith("checked: ") and tail[0].split()[2] == "rules"
    assert int(tail[0].split()[1]) > 40
    assert tail[2] == (
        f"  evalkit preflight {config} --fix   (applies the safe fixes for NEL202; "
        "--diff first to see them)"
    )
    assert "  by hand: NEL002: the fix line above (see references/rules.md#nel002)" in tail
    assert tail[-1] == f"  then: evalkit preflight {config}"


def test_preflight_diff_ends_with_the_command_that_applies_it(tmp_path, run_cli):
    template = Path(__file__).resolve().parent.parent / "recipes/examples/gym/example_mrcr.yaml"
    config = tmp_path / "mrcr.yaml"
    config.write_text(template.read_text().replace('walltime: "04:00:00"', "walltime: 10:00:00"))
    before = config.read_text()
    code, out, err = run_cli("preflight", config, "--fix", "--diff")
    assert code == 1 and out.startswith("---")  # the diff alone on stdout
    steps = after(err, "\nnext:\n")
    assert steps[0] == (
        f"  evalkit preflight {config} --fix   (applies the safe fixes for NEL202; "
        "the diff above shows them)"
    )
    assert config.read_text() == before


# --------------------------------------------------------------------- score, regrade


def test_score_and_regrade_end_with_what_they_did_and_the_next_command(run_cli):
    _, out, _ = run_cli("score", CANARY.parent)
    assert out.rstrip().endswith(
        f"  evalkit compare BASELINE_RUN {CANARY.parent} --margin 1.0   (against its baseline)"
    )
    assert "\nchecked: nothing; score reads each task's headline" in out
    code, out, _ = run_cli("regrade", CANARY)
    assert code == 0
    assert "\nchecked: 20 rollouts graded again with NeMo Gym's rules" in out
    assert after(out, "\nnext:\n") == [
        f"  evalkit validate {CANARY}   (the rest of the run checks, if not yet run)"
    ]


# ---------------------------------------------------------------------------- SKILL.md


REPO = Path(__file__).resolve().parent.parent


def test_skill_md_routes_end_at_commands_and_send_nobody_reading():
    """Issue 32 item 2: the imperatives agents obeyed are gone, and every tool route ends
    at an evalkit command (references stay for what the tools leave open)."""
    text = (REPO / "SKILL.md").read_text()
    for gone in (
        "before the first SLURM dry-run",
        "read in Step 3",
        "before reporting any score",
        "Steps 1-9 apply",
        "tick it off",
        "read at each step",
    ):
        assert gone not in text, gone
    routes = text.split("## Routes: one per question", 1)[1].split("\n## ", 1)[0]
    sections = routes.split("\n### ")[1:]
    assert len(sections) >= 6
    for section in sections[:5]:  # the routes the tools cover
        assert "`scripts/evalkit " in section, section.splitlines()[0]
        assert "read `references/" not in section.lower()
    workflow = (REPO / "references/launcher-workflow.md").read_text()
    assert "## The steps at a glance" in workflow and "| 9 |" in workflow


def test_clean_preflight_ends_at_the_pinned_dry_run_with_its_overrides(run_cli):
    config = (
        Path(__file__).resolve().parent / "preflight/fixtures/NEL002/pass/filled_by_override.yaml"
    )
    code, out, _ = run_cli("preflight", config, "-o", "execution.account=me")
    assert code == 0
    assert after(out, "\nnext:\n") == [
        f"  scripts/nel-gym.sh run --config {config} -o execution.account=me --dry-run   "
        "(the pinned nel 0.2.6 dry-run; or: evalkit preflight CONFIG --with-launcher)"
    ]


def test_validate_resubmits_a_renamed_copy_where_its_run_sub_ran(tmp_path, run_cli):
    """A task copied off the cluster as `run/`: the sbatch goes to the task directory its
    run.sub records (TASK_DIR), where the job's paths point, not to the copy."""
    task = tmp_path / "run"
    shutil.copytree(CANARY, task)
    (task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json").unlink()
    code, out, _ = run_cli("validate", task)
    assert code == 1
    cluster = f"/lustre/evals/mrcr/20261130_101507-{CANARY_INVOCATION}/nemo_gym.0"
    assert f"  (cd {cluster} && rm -f .slurm_job_id.list .accumulated_walltime && sbatch" in out
