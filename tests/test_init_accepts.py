"""`init` writes only what its own preflight accepts (issue 40).

For every task `init --list` names and a grid of facts (two checkpoints, thinking on and
off, the parser the model card names as a plugin and as the built-in, a parser no vLLM
registers), init either writes configs that preflight, with the checkpoint, finds no
error in, or writes nothing and says why with the alternatives. A deterministic fix is
applied before writing, with an `# init:` comment naming the substitution.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evalkit.checkpoint import load_checkpoint
from evalkit.init.catalog import skill_dir, tasks
from evalkit.preflight.runner import Options, check_file
from helpers.facts import FP8_MOE, FP8_MOE_FACTS
from helpers.tier import grid

NVFP4 = Path(__file__).parent / "fixtures" / "init" / "nemotron3-nano-nvfp4"
NVFP4_FACTS = {
    **FP8_MOE_FACTS,
    "gpu_mem_gib": 141,
    "checkpoint_path": "/lustre/models/Nemotron-3-Nano-NVFP4",
    "served_model_name": "nano-nvfp4",
    "reasoning_parser": "nemotron_v3",
}
AA_EXTRA = {
    "cpu_partition": "cpu",
    "tool_call_parser": "qwen3_coder",
    "judge_url": "https://inference.example/v1",
    "tau2_url": "https://inference.example/v1/chat/completions",
    "gdpval_sif_dir": "/lustre/my-team/gdpval/sif",
    "gdpval_ref_dir": "/lustre/my-team/gdpval/ref",
}
ENV = {"USER": "ci", "HF_TOKEN": "x", "INFERENCE_API_KEY": "x", "TAVILY_API_KEY": "x"}
GRID = [
    ("fp8-qwen3", FP8_MOE, FP8_MOE_FACTS),
    ("nvfp4-builtin", NVFP4, NVFP4_FACTS),
    ("nvfp4-card-plugin-name", NVFP4, {**NVFP4_FACTS, "reasoning_parser": "nano_v3"}),
    ("nvfp4-instruct", NVFP4, {**NVFP4_FACTS, "thinking": False}),
    ("fp8-unregistered", FP8_MOE, {**FP8_MOE_FACTS, "reasoning_parser": "qwen9"}),
]
TASKS = sorted(tasks(skill_dir()))


def _init(run_cli, tmp_path, task, checkpoint, facts):
    given = {**facts, **AA_EXTRA}
    if not given["thinking"]:
        given.pop("reasoning_parser")
    path = tmp_path / "facts.yaml"
    path.write_text(yaml.safe_dump(given))
    out = tmp_path / "out"
    target = out if task == "aa" else out.with_suffix(".yaml")
    code, _, err = run_cli("init", task, "--checkpoint", checkpoint, "--facts", path, "-o", target)
    written = sorted(out.glob("*.yaml")) if task == "aa" else [target] * target.exists()
    return code, err, written


# The fast tier runs the checkerboard half of task x case (tests/helpers/tier.py).
PAIRS = [(task, *case) for case, task in grid(GRID, TASKS)]


@pytest.mark.parametrize("task,case,checkpoint,facts", PAIRS, ids=[f"{p[1]}-{p[0]}" for p in PAIRS])
def test_init_writes_only_what_preflight_accepts(run_cli, tmp_path, task, case, checkpoint, facts):
    code, err, written = _init(run_cli, tmp_path, task, checkpoint, facts)
    if code != 0:
        assert not written and "error:" in err, err  # refused, nothing written, says why
        if case == "fp8-unregistered":
            assert "NEL313" in err and "qwen3" in err  # the alternative the image has
        return
    assert written
    ckpt = load_checkpoint(str(checkpoint))
    for path in written:
        errors = [
            f
            for f in check_file(str(path), Options(checkpoint=ckpt, env=ENV))
            if f.severity == "error"
        ]
        assert not errors, (path.name, [(f.rule, f.message) for f in errors])
    if case == "fp8-unregistered":  # written only where the template passes no parser
        assert not any("qwen9" in p.read_text() for p in written)


def test_the_card_plugin_name_is_written_as_the_builtin_with_a_comment(run_cli, tmp_path):
    facts = {**NVFP4_FACTS, "reasoning_parser": "nano_v3"}
    code, err, (path,) = _init(run_cli, tmp_path, "mrcr-128k", NVFP4, facts)
    assert code == 0, err
    text = path.read_text()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("reasoning_parser:"))
    assert "nemotron_v3" in line and "# init: nano_v3 -> nemotron_v3" in line and "NEL313" in line
    assert "nano_v3 written as nemotron_v3" in err


@pytest.mark.launcher
def test_check_reports_no_error_a_fixer_could_have_prevented(run_cli, tmp_path, monkeypatch):
    """The issue's case: MRCR 1M with the card's `nano_v3` on the vLLM 0.26.0 image. The
    written file carries the built-in name, so `--check` finds no NEL313 and the real
    dry-run accepts it."""
    import json

    from helpers.nel import DRY_RUN_ENV, nel_executable

    for key, value in DRY_RUN_ENV.items():
        monkeypatch.setenv(key, value)
    facts = tmp_path / "facts.yaml"
    facts.write_text(yaml.safe_dump({**NVFP4_FACTS, "reasoning_parser": "nano_v3"}))
    out = tmp_path / "mrcr.yaml"
    code, stdout, _ = run_cli(
        "init", "mrcr-1m", "--checkpoint", NVFP4, "--facts", facts, "-o", out,
        "--check", "--nel", nel_executable(), "--format", "json",
    )  # fmt: skip
    checks = json.loads(stdout)["checks"][str(out)]
    assert [f for f in checks["preflight"] if f["severity"] == "error"] == []
    assert checks["dry_run"]["accepted"], checks["dry_run"]
    assert code == 0
