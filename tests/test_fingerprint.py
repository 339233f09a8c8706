"""The run fingerprint (evalkit.runs.fingerprint) and its diff (evalkit.comparison.fingerprint).

Fixtures are the bundled pair's task runs (tests/data/suite, PROVENANCE.md there: run.sub
rendered by the real nel 0.2.6, run_config.yml as the launcher embeds it), the real
harness runs under tests/data/outcomes and tests/data/simple_evals, copied and varied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalkit.comparison.fingerprint import (
    NOT_COMPARABLE,
    NOTE,
    TABLE,
    WARNING,
    diff_fingerprints,
)
from evalkit.runs.fingerprint import FIELDS, DatasetIdentity, read_fingerprint
from evalkit.runs.run import load_runs

DATA = Path(__file__).resolve().parent / "data"
GPQA = "simple_evals.gpqa_diamond.1"


def _copy(side: str, task: str, tmp_path: Path, name: str | None = None) -> Path:
    target = tmp_path / (name or side) / task
    shutil.copytree(DATA / "suite" / side / task, target)
    return target


def _one(path: Path):
    (run,) = load_runs(path)
    return run


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, (old, path)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def test_bundled_gpqa_fingerprint_reads_every_source():
    fp = read_fingerprint(_one(DATA / "suite" / "baseline" / GPQA))
    assert fp.value("checkpoint") == "/lustre/fake/checkpoints/model-bf16"
    assert fp["checkpoint"].source == "run.sub:160"
    assert fp.value("images") == {
        "deployment": "vllm/vllm-openai:v0.26.0",
        "proxy": "haproxy:3.0",
        "evaluation": "nvcr.io/nvidia/eval-factory/simple-evals:26.03",
    }
    # The serve command the job ran (deployment_cmd.sh, base64 in run.sub's srun line).
    assert fp.value("max_model_len") == 1_100_000
    assert fp.value("reasoning_parser") == "nemotron_v3"
    assert fp.value("temperature") == 1.0 and fp.value("top_p") == 0.95
    assert fp.value("max_new_tokens") == 16384
    assert fp["max_new_tokens"].source == "artifacts/run_config.yml:79"
    assert fp.value("chat_template_kwargs") == {"enable_thinking": True}
    assert fp.value("reasoning_traces") == {"process_reasoning_traces": True}
    assert fp.value("system_prompt") == "none"
    assert fp.value("launcher_version") == "0.2.6"
    # The task's own limit_samples: null, not the MRCR task's global 90.
    assert fp.value("limit_samples") == "none (all items)"
    assert fp.value("gym_version") is None  # not a Gym task
    assert fp.value("dataset") is None
    assert set(fp.to_json()) == set(FIELDS)


def test_bundled_mrcr_fingerprint_reads_gym_facts():
    fp = read_fingerprint(_one(DATA / "suite" / "baseline" / "nemo_gym.0"))
    assert fp.value("gym_version") == "a431501aa294f3237d472aaf58dd1e5026156ea8"
    assert fp["gym_version"].source.startswith("logs/client-")
    assert fp.value("limit_samples") == 90
    assert fp.value("repeats") == 1
    assert fp.value("max_new_tokens") == "null (no cap sent)"
    assert fp.value("images")["evaluation"] == "registry.invalid/fake/nemo-gym-git:a431501"


def test_dataset_identity_comes_from_the_caller():
    run = _one(DATA / "suite" / "baseline" / GPQA)
    fp = read_fingerprint(run, DatasetIdentity(198, "ab" * 16))
    assert fp.to_json()["dataset"]["value"] == {"item_count": 198, "digest": "ab" * 16}


def test_the_issue_case_two_not_comparable_diffs_naming_both_fields(tmp_path):
    """Issue 37: a GPQA candidate at temperature 0.6 and max_new_tokens 4096 against a
    baseline at 1.0 and 16384."""
    cand = _copy("candidate", GPQA, tmp_path)
    config = cand / "artifacts" / "run_config.yml"
    _edit(config, "    max_new_tokens: 16384\n", "    max_new_tokens: 4096\n")
    _edit(
        config,
        "    temperature: 1.0\n    top_p: 0.95\n  type:",
        "    temperature: 0.6\n    top_p: 0.95\n  type:",
    )
    base = read_fingerprint(_one(DATA / "suite" / "baseline" / GPQA))
    diffs = diff_fingerprints(base, read_fingerprint(_one(cand)))
    blocking = [d for d in diffs if d.consequence == NOT_COMPARABLE]
    assert [d.field for d in blocking] == ["temperature", "max_new_tokens"]
    temperature, tokens = blocking
    assert (temperature.base, temperature.cand) == (1.0, 0.6)
    assert (tokens.base, tokens.cand) == (16384, 4096)
    assert "base 1, candidate 0.6" in temperature.reason
    assert "base 16384, candidate 4096" in tokens.reason
    assert "artifacts/run_config.yml:79" in tokens.reason
    # Nothing else differs but what the two sides did not record (notes).
    assert {d.consequence for d in diffs} - {NOT_COMPARABLE} <= {NOTE}


def test_the_bundled_pair_differs_in_the_checkpoint_only():
    base = read_fingerprint(_one(DATA / "suite" / "baseline" / GPQA))
    cand = read_fingerprint(_one(DATA / "suite" / "candidate" / GPQA))
    assert base.value("checkpoint") != cand.value("checkpoint")
    diffs = diff_fingerprints(base, cand)
    assert all(d.consequence == NOTE for d in diffs), diffs
    assert "checkpoint" not in {d.field for d in diffs}


def test_every_field_has_a_declared_consequence():
    assert tuple(TABLE) == FIELDS
    for name, rule in TABLE.items():
        assert rule.consequence in (NOT_COMPARABLE, WARNING, NOTE, None), name
        assert rule.why and "\n" not in rule.why, name
    assert TABLE["checkpoint"].consequence is None
    assert TABLE["served_model"].consequence == NOTE
    for name in ("temperature", "top_p", "max_new_tokens", "dataset", "repeats", "limit_samples"):
        assert TABLE[name].consequence == NOT_COMPARABLE, name
    for name in ("vllm_version", "images", "harness_version"):
        assert TABLE[name].consequence == WARNING, name


@pytest.mark.parametrize(
    "path",
    [
        DATA / "outcomes" / "lm_eval.0",
        DATA / "simple_evals" / "repeats",
        DATA / "outcomes" / "hle.0",
    ],
    ids=lambda p: p.name,
)
def test_real_harness_runs_without_run_sub(path):
    fp = read_fingerprint(_one(path))
    assert fp.value("checkpoint") is None and fp.value("images") is None
    assert fp.value("temperature") is not None
    doc = fp.to_json()
    assert all(set(v) == {"value", "source"} for v in doc.values())
