"""Issue 22 item 5: no writer overwrites an input. `report -o` and `init -o` refuse a path
equal to an input or inside a run directory (symlinks resolved) and an existing file
without --force: one line on stderr, exit 2, input bytes unchanged."""

from __future__ import annotations

import shutil

import pytest

from .conftest import snapshot

FAST = ("--bootstrap", "200")


@pytest.fixture
def pair(canary, tmp_path):
    cand = tmp_path / "cand"
    shutil.copytree(canary, cand)
    return canary, cand


def _refused(run_cli, argv, *roots):
    before = [snapshot(r) for r in roots]
    code, out, err = run_cli(*argv)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert [snapshot(r) for r in roots] == before
    return err


@pytest.mark.parametrize(
    "inside", ["nemo_gym.0/artifacts/evaluator_rollouts.jsonl", "nemo_gym.0/artifacts/results.yml"]
)
def test_report_refuses_a_file_of_a_run(run_cli, pair, inside):
    base, cand = pair
    err = _refused(run_cli, ("report", base, cand, *FAST, "-o", cand / inside), base, cand)
    assert "input" in err


def test_report_refuses_a_new_file_inside_a_run(run_cli, pair):
    base, cand = pair
    target = cand / "nemo_gym.0" / "report.html"
    _refused(run_cli, ("report", base, cand, *FAST, "-o", target), base, cand)
    assert not target.exists()


def test_report_refuses_a_symlink_into_a_run(run_cli, pair, tmp_path):
    base, cand = pair
    link = tmp_path / "innocent.html"
    link.symlink_to(cand / "nemo_gym.0" / "artifacts" / "evaluator_rollouts.jsonl")
    _refused(run_cli, ("report", base, cand, *FAST, "-o", link, "--force"), base, cand)


def test_report_refuses_the_gate_file(run_cli, pair, tmp_path):
    base, cand = pair
    gate = tmp_path / "gate.yaml"
    gate.write_text("default: {points: 1.0}\n")
    argv = ("report", base, cand, *FAST, "--gate", gate, "-o", gate, "--force")
    _refused(run_cli, argv, base, cand, gate)


def test_report_needs_force_for_an_existing_file(run_cli, pair, tmp_path):
    base, cand = pair
    out = tmp_path / "report.html"
    out.write_text("old")
    err = _refused(run_cli, ("report", base, cand, *FAST, "-o", out), base, cand, out)
    assert "--force" in err
    code, _, err = run_cli("report", base, cand, *FAST, "-o", out, "--force")
    assert code in (0, 1), err
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_init_refuses_its_facts_file(run_cli, tmp_path):
    import yaml

    from test_init import FP8_FACTS, FP8_MOE

    facts = tmp_path / "facts.yaml"
    facts.write_text(yaml.safe_dump(FP8_FACTS))
    base = ("init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts)
    code, _, err = run_cli(*base, "-o", tmp_path / "ok.yaml")
    assert code == 0, err  # the facts are complete: only the destination is refused below
    _refused(run_cli, (*base, "-o", facts, "--force"), facts)
    _refused(run_cli, (*base, "-o", tmp_path / "ok.yaml"), facts)


def test_write_output_guards_and_writes_exactly(tmp_path):
    from evalkit.errors import UsageError
    from evalkit.render.output import write_output

    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    with pytest.raises(UsageError):
        write_output(run / "logs" / "x.log", "x", inputs=[run])
    out = write_output(tmp_path / "out.md", "HF_TOKEN=abc123\n", inputs=[run])
    # issue 30: a written file holds what it was given; reports are redacted as data first
    assert out.read_text() == "HF_TOKEN=abc123\n"
    with pytest.raises(UsageError):
        write_output(tmp_path / "out.md", "again", inputs=[run])
    write_output(tmp_path / "out.md", "again", inputs=[run], force=True)
    assert out.read_text() == "again"
