"""Every read bounded, every loop bounded (issue 30, item 4): a dotenv file that is a
device or a pipe, an exponential `${...}` chain, a deeply nested rollouts line under
`status`, a huge `--jobs`, and a path fact that would split into two container mounts all
end in one line naming the input and exit 2, in bounded time and memory.

Commands whose peak memory is asserted run in a fresh process (tests/hostile/rss_driver.py,
marked `entrypoint`); the others in-process, where a hang fails the test at the timeout.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from helpers.facts import FP8_MOE, FP8_MOE_FACTS

from .conftest import MRCR_EXAMPLE
from .test_readers import RSS_BOUND_KB, evalkit, evalkit_here, one_line_naming

FACTS = FP8_MOE_FACTS


def plant_dotenv(where: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(where / ".env")
    else:
        (where / ".env").symlink_to("/dev/zero")


# ------------------------------------------------------------------- the dotenv file


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_preflight_refuses_a_dotenv_that_is_not_a_file(tmp_path, kind):
    config = tmp_path / "config.yaml"
    shutil.copy(MRCR_EXAMPLE, config)
    plant_dotenv(tmp_path, kind)
    code, _, err, rss = evalkit("preflight", config, cwd=tmp_path)
    assert code == 2, err
    one_line_naming(err, ".env")
    assert rss < RSS_BOUND_KB


@pytest.mark.parametrize("flag", [None, "--env-file"])
def test_init_check_refuses_a_fifo_dotenv(tmp_path, flag):
    plant_dotenv(tmp_path, "fifo")
    facts = tmp_path / "facts.yaml"
    facts.write_text(yaml.safe_dump(FACTS))
    argv = ["init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts]
    argv += ["-o", tmp_path / "mrcr.yaml", "--check", "--nel", "/bin/false"]
    if flag:
        argv += [flag, tmp_path / ".env"]
    code, _, err, _ = evalkit_here(*argv, cwd=tmp_path)
    assert code == 2, err
    one_line_naming(err, ".env")


def test_a_dotenv_nel_would_not_read_is_skipped(tmp_path):
    """nel 0.2.6 reads ./.env only when it is a file (cli/run.py): a dangling link or a
    directory is no dotenv, for the launcher and for preflight alike."""
    from evalkit.config.interpolation import launch_environment

    (tmp_path / ".env").symlink_to(tmp_path / "gone")
    assert launch_environment(cwd=str(tmp_path)) == dict(os.environ)
    (tmp_path / ".env").unlink()
    (tmp_path / ".env").mkdir()
    assert launch_environment(cwd=str(tmp_path)) == dict(os.environ)


def test_a_huge_dotenv_is_refused(tmp_path):
    config = tmp_path / "config.yaml"
    shutil.copy(MRCR_EXAMPLE, config)
    (tmp_path / ".env").write_bytes(b"A=1\n" * (2 * 1024 * 1024 // 4 + 1))
    code, _, err, _ = evalkit_here("preflight", config, cwd=tmp_path)
    assert code == 2 and "larger than" in one_line_naming(err, ".env"), err


# ------------------------------------------------------------------- ${...} expansion


def chain_config(tmp_path: Path, levels: int, fanout: int = 10) -> Path:
    """About 1 KB: each level repeats the level below `fanout` times; the last level is
    read by a walltime (NEL202 printed its whole expansion)."""
    lines = ["x:", "  s0: '" + "a" * 90 + "'"]
    for k in range(1, levels + 1):
        lines.append(f'  s{k}: "' + f"${{x.s{k - 1}}}." * fanout + '"')
    text = MRCR_EXAMPLE.read_text() + "\n".join(lines) + "\n"
    config = tmp_path / "config.yaml"
    config.write_text(text.replace("walltime: ", f"walltime: ${{x.s{levels}}} #", 1))
    return config


@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_an_exponential_reference_chain_is_refused(tmp_path):
    config = chain_config(tmp_path, levels=7)
    code, out, err, rss = evalkit("preflight", config, cwd=tmp_path)
    assert code == 2, (out[-300:], err)
    line = one_line_naming(err, "config.yaml:")
    assert "expands to more than" in line and len(out) < 10_000
    assert rss < RSS_BOUND_KB


def test_a_long_reference_chain_is_refused(tmp_path):
    text = MRCR_EXAMPLE.read_text() + "x:\n"
    text += "".join(f'  c{i}: "${{x.c{i + 1}}}"\n' for i in range(60)) + "  c60: v\n"
    (tmp_path / "config.yaml").write_text(text)
    code, _, err, _ = evalkit_here("preflight", tmp_path / "config.yaml", cwd=tmp_path)
    assert code == 2 and "references deep" in one_line_naming(err, "config.yaml:"), err


def test_a_short_chain_still_resolves(tmp_path):
    config = chain_config(tmp_path, levels=2)
    code, out, err, _ = evalkit_here("preflight", config, "--format", "json", cwd=tmp_path)
    assert code in (0, 1) and "NEL202" in out, err  # the walltime is read, not refused


def fanout(levels: int, ref: str) -> dict:
    """x.s0 of 90 characters, each level ten references to the one below, spelled `ref`."""
    x = {"s0": "a" * 90}
    for k in range(1, levels + 1):
        x[f"s{k}"] = ref.format(k - 1) * 10
    return {"x": x}


@pytest.mark.parametrize(
    "ref", ["${{x.s{}}}", "${{.s{}}}", "${{oc.select:x.s{},d}}", "${{oc.select:${{x.s{}}},d}}"]
)
def test_every_reference_form_counts(ref):
    from evalkit.config.expansion import check_expansion
    from evalkit.errors import InputError

    check_expansion(fanout(2, ref))  # x.s2 expands to about 9,000 characters
    with pytest.raises(InputError, match=r"x\.s3: .*expands to more than"):
        check_expansion(fanout(3, ref))  # about 90,000


def test_cycles_and_deep_containers_end_in_one_error_or_none():
    from evalkit.config.expansion import check_expansion
    from evalkit.errors import InputError

    check_expansion({"a": "${b}", "b": "${a}", "c": {"d": "${c}"}})  # OmegaConf reports these
    deep: dict = {"v": "x"}
    for _ in range(90):
        deep = {"n": deep}
    data = {f"r{i}": f"${{r{i + 1}}}${{deep}}" for i in range(30)}
    data.update(r30="${deep}", deep=deep)
    try:
        check_expansion(data)
    except InputError as err:
        assert "\n" not in str(err)


# --------------------------------------------------------- status on a deep rollouts line


@pytest.mark.parametrize("command", ["status", "validate"])
def test_a_deeply_nested_rollouts_line_names_the_line(tmp_path, command):
    from helpers.rungen import write_mrcr_run

    run = write_mrcr_run(tmp_path / "runs", n_items=12, prompt_chars=200)
    rollouts = run / "artifacts" / "evaluator_rollouts.jsonl"
    with rollouts.open("a") as handle:
        handle.write('{"x":' * 5000 + "1" + "}" * 5000 + "\n")
    lines = rollouts.read_bytes().count(b"\n")
    code, _, err, _ = evalkit_here(command, run)
    assert code == 2
    assert "too deep" in one_line_naming(err, f"evaluator_rollouts.jsonl:{lines}:")


# ----------------------------------------------------------------- regrade --jobs


def test_regrade_jobs_are_bounded_by_the_cores(tmp_path):
    from evalkit.benchmarks.mrcr.regrade import regrade_file, usable_cores
    from helpers.rungen import write_mrcr_run

    run = write_mrcr_run(tmp_path / "runs", n_items=12, prompt_chars=200)
    result = regrade_file(run / "artifacts" / "evaluator_rollouts.jsonl", jobs=100_000)
    assert 1 <= result.jobs <= usable_cores()


# ------------------------------------------------------ what init may write, and where


def test_init_force_never_overwrites_the_skills_own_template(tmp_path, monkeypatch):
    skill = tmp_path / "skill"
    shutil.copytree(Path(__file__).resolve().parents[2] / "recipes", skill / "recipes")
    template = skill / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
    before = template.read_bytes()
    facts = tmp_path / "facts.yaml"
    facts.write_text(yaml.safe_dump(FACTS))
    monkeypatch.setenv("EVALKIT_SKILL_DIR", str(skill))
    code, _, err, _ = evalkit_here(
        "init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts,
        "-o", template, "--force",
    )  # fmt: skip
    assert code == 2 and "recipes" in one_line_naming(err, str(template)), err
    assert template.read_bytes() == before


# ------------------------------------------------------------- one rollouts record


@pytest.mark.parametrize("command", ["validate", "status"])
def test_a_rollouts_line_past_the_record_bound_is_refused(tmp_path, run_cli, monkeypatch, command):
    """A record is read whole, so its length is bounded (a line with no newline was read
    into memory however long it was); the bound is lowered here to keep the file small."""
    from evalkit import inputs
    from helpers.rungen import write_mrcr_run

    monkeypatch.setattr(inputs, "MAX_RECORD_BYTES", 64 * 1024)
    run = write_mrcr_run(tmp_path / "runs", n_items=12, prompt_chars=200)
    rollouts = run / "artifacts" / "evaluator_rollouts.jsonl"
    lines = rollouts.read_bytes().count(b"\n")
    with rollouts.open("ab") as handle:
        handle.write(b'{"x": "' + b"y" * 100_000 + b'"}\n')
    code, _, err = run_cli(command, run)
    assert code == 2
    assert "longer than" in one_line_naming(err, f"evaluator_rollouts.jsonl:{lines + 1}:")
