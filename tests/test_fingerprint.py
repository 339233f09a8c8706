"""The run fingerprint (evalkit.runs.fingerprint) and its diff (evalkit.comparison.fingerprint).

Fixtures are the bundled pair's task runs (tests/data/suite, PROVENANCE.md there: run.sub
rendered by the real nel 0.2.6, run_config.yml as the launcher embeds it), the real
harness runs under tests/data/outcomes and tests/data/simple_evals, copied and varied.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from evalkit.comparison.fingerprint import (
    ACCEPT,
    NOT_COMPARABLE,
    NOTE,
    TABLE,
    UNVERIFIED,
    WARNING,
    diff_fingerprints,
)
from evalkit.comparison.fingerprint_checks import OWNED
from evalkit.comparison.fingerprint_docs import END, render, splice
from evalkit.runs.fingerprint import FIELDS, DatasetIdentity, dataset_identity, read_fingerprint
from evalkit.runs.run import load_runs
from evalkit.runs.serverbanner import read_banner, read_serve_command
from helpers.bundled import task_dir
from helpers.synth.runs.serverlog import vllm_startup

DATA = Path(__file__).resolve().parent / "data"
GPQA = "simple_evals.gpqa_diamond.0"
# process_reasoning_traces: true with nemo-evaluator 0.2.8's reasoning interceptor defaults
REASONING_ON = {
    "process_reasoning_traces": True,
    "start_reasoning_token": "<think>",
    "end_reasoning_token": "</think>",
    "include_if_not_finished": True,
    "migrate_reasoning_content": False,
}


def _copy(side: str, task: str, tmp_path: Path, name: str | None = None) -> Path:
    target = tmp_path / (name or side) / task
    shutil.copytree(task_dir(side, task), target)
    return target


def _one(path: Path):
    (run,) = load_runs(path)
    return run


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, (old, path)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def test_bundled_gpqa_fingerprint_reads_every_source():
    fp = read_fingerprint(_one(task_dir("baseline", GPQA)))
    assert fp.value("checkpoint") == "/lustre/fake/checkpoints/model-bf16"
    assert fp["checkpoint"].source == "run.sub:160"
    assert fp.value("images") == {"deployment": "vllm/vllm-openai:v0.26.0", "proxy": "haproxy:3.0"}
    assert fp.value("harness_version") == "nvcr.io/nvidia/eval-factory/simple-evals:26.03"
    # The serve command the job ran (deployment_cmd.sh, base64 in run.sub's srun line).
    assert fp.value("max_model_len") == 1_100_000
    assert fp.value("reasoning_parser") == "nemotron_v3"
    assert fp.value("temperature") == 1.0 and fp.value("top_p") == 0.95
    assert fp.value("max_new_tokens") == 16384
    assert fp["max_new_tokens"].source == "artifacts/run_config.yml:5"
    assert fp.value("chat_template_kwargs") == {"enable_thinking": True}
    assert fp.value("reasoning_traces") == REASONING_ON
    assert fp.value("system_prompt") == "none"
    assert fp.value("launcher_version") == "0.2.6"
    # The task's own limit_samples: null, not the MRCR task's global 90.
    assert fp.value("limit_samples") == "none (all items)"
    assert fp.value("gym_version") is None  # not a Gym task
    assert fp.value("dataset") is None
    assert set(fp.to_json()) == set(FIELDS)


def test_bundled_mrcr_fingerprint_reads_gym_facts():
    fp = read_fingerprint(_one(task_dir("baseline", "nemo_gym.0")))
    assert fp.value("gym_version") == "a431501aa294f3237d472aaf58dd1e5026156ea8"
    assert fp["gym_version"].source.startswith("logs/client-")
    assert fp.value("limit_samples") == 90
    assert fp.value("repeats") == 1
    assert fp.value("max_new_tokens") == "null (no cap sent)"
    assert fp.value("harness_version") == "registry.invalid/fake/nemo-gym-git:a431501"


def test_dataset_identity_comes_from_the_caller():
    run = _one(task_dir("baseline", GPQA))
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
    base = read_fingerprint(_one(task_dir("baseline", GPQA)))
    diffs = diff_fingerprints(base, read_fingerprint(_one(cand)))
    blocking = [d for d in diffs if d.consequence == NOT_COMPARABLE]
    assert [d.field for d in blocking] == ["temperature", "max_new_tokens"]
    temperature, tokens = blocking
    assert (temperature.base, temperature.cand) == (1.0, 0.6)
    assert (tokens.base, tokens.cand) == (16384, 4096)
    assert "base 1, candidate 0.6" in temperature.reason
    assert "base 16384, candidate 4096" in tokens.reason
    assert "artifacts/run_config.yml:5" in tokens.reason
    # Nothing else differs but what the two sides did not record: notes, and the dataset
    # (read_fingerprint is handed none here), unverified as every unrecorded blocking field.
    assert {d.consequence for d in diffs} - {NOT_COMPARABLE} <= {NOTE, UNVERIFIED}
    # (gym_version: not a Gym task; the trust check gym-version owns it, comparison/
    # fingerprint_checks.OWNED, so neither becomes a finding of the fingerprint)
    assert {d.field for d in diffs if d.consequence == UNVERIFIED} == {"dataset", "gym_version"}


def test_the_bundled_pair_differs_in_the_checkpoint_only():
    base = read_fingerprint(_one(task_dir("baseline", GPQA)))
    cand = read_fingerprint(_one(task_dir("candidate", GPQA)))
    assert base.value("checkpoint") != cand.value("checkpoint")
    diffs = diff_fingerprints(base, cand)
    assert all(d.consequence == NOTE or d.field in OWNED for d in diffs), diffs
    assert "checkpoint" not in {d.field for d in diffs}
    assert base.conflicts == cand.conflicts == ()  # config and results.yml agree


def test_every_field_has_a_declared_consequence():
    assert tuple(TABLE) == FIELDS
    for name, rule in TABLE.items():
        assert rule.consequence in (NOT_COMPARABLE, ACCEPT, WARNING, NOTE, None), name
        assert rule.why and "\n" not in rule.why, name
    assert TABLE["checkpoint"].consequence is None
    assert TABLE["served_model"].consequence == NOTE
    for name in ("temperature", "top_p", "max_new_tokens", "dataset", "repeats", "limit_samples"):
        assert TABLE[name].consequence == NOT_COMPARABLE, name
    assert TABLE["vllm_version"].consequence == WARNING  # its image is the blocking field
    for name in ("images", "harness_version"):  # issue 47: no pass on another stack
        assert TABLE[name].consequence == ACCEPT, name


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
    json.loads(json.dumps(doc, allow_nan=False))  # plain JSON, as score --format json prints it


# -- the vLLM server log's start-up lines ---------------------------------------------------
START = datetime(2026, 12, 2, 4, 40, 0)


def _with_server_log(tmp_path: Path, side: str, name: str, text: str) -> Path:
    task = _copy(side, GPQA, tmp_path, name)
    (log,) = (task / "logs").glob("server-0-*.log")  # instance 0, the side's own job id
    log.write_bytes(text.encode("utf-8") + log.read_bytes())
    return task


@pytest.mark.parametrize(
    ("logo", "color"), [(True, False), (True, True), (False, False)], ids=["logo", "color", "plain"]
)
def test_server_log_banner_gives_version_context_and_parser(tmp_path, logo, color):
    banner = vllm_startup(
        START, max_model_len=131072, reasoning_parser="qwen3", logo=logo, color=color
    )
    fp = read_fingerprint(_one(_with_server_log(tmp_path, "baseline", "b", banner)))
    log = "logs/server-0-5100011-0.log"
    assert fp.value("vllm_version") == "0.26.0"
    assert fp["vllm_version"].source == f"{log}:{3 if logo else 1}"
    # The engine's own figure wins over the serve command's 1100000 in run.sub.
    assert fp.value("max_model_len") == 131072
    assert fp["max_model_len"].source == f"{log}:{8 if logo else 3}"
    assert fp.value("reasoning_parser") == "qwen3"
    assert fp["reasoning_parser"].source.startswith(log)


def test_server_log_without_a_parser_says_none(tmp_path):
    fp = read_fingerprint(_one(_with_server_log(tmp_path, "baseline", "b", vllm_startup(START))))
    assert fp.value("reasoning_parser") == "none"  # the engine config's reasoning_parser=''


def test_an_older_server_banner_is_read():
    """vLLM 0.6-0.10 `run_server`: `logger.info("vLLM API server version %s", ...)`
    (vllm/entrypoints/openai/api_server.py; the prefix here follows 0.26's format, a guess
    for those versions)."""
    lines = ["INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n"]
    facts = read_banner(lines)
    assert facts.version.value == "0.8.5" and facts.version.line == 1


def test_banner_scan_stops_at_the_first_stats_line():
    lines = [
        "INFO [loggers.py:310] Engine 000: Running: 1 reqs, GPU KV cache usage: 1.0%\n",
        "vLLM server version 9.9.9, serving model /checkpoint\n",
    ]
    assert read_banner(lines).version is None


def test_versions_and_parsers_that_differ_are_warnings(tmp_path):
    base = _with_server_log(
        tmp_path, "baseline", "b", vllm_startup(START, reasoning_parser="qwen3")
    )
    cand = _with_server_log(
        tmp_path,
        "candidate",
        "c",
        vllm_startup(START, version="0.27.1", reasoning_parser="deepseek_r1"),
    )
    diffs = {
        d.field: d
        for d in diff_fingerprints(read_fingerprint(_one(base)), read_fingerprint(_one(cand)))
    }
    assert diffs["vllm_version"].consequence == WARNING
    assert "base 0.26.0, candidate 0.27.1" in diffs["vllm_version"].reason
    assert diffs["reasoning_parser"].consequence == WARNING
    assert not [d for d in diffs.values() if d.consequence == NOT_COMPARABLE]


# -- the serve command ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("vllm serve /checkpoint --max-model-len 32k", 32000),
        ("vllm serve /checkpoint --max-model-len=128K", 131072),
        ("vllm serve /checkpoint --max_model_len 25.6k", 25600),
        ("vllm serve /checkpoint --max-model-len 1.5K", None),  # vLLM refuses it
        ("vllm serve /checkpoint --max-model-len auto", None),
        ("vllm serve /checkpoint --max-model-len 4096 --max-model-len 8192", 8192),
    ],
)
def test_serve_command_context_length_as_vllm_reads_it(command, expected):
    found = read_serve_command(command).max_model_len
    assert (found.value if found else None) == expected


# -- the docs ---------------------------------------------------------------------------------
def test_compare_md_fingerprint_section_is_current(repo_root):
    path = repo_root / "references" / "compare.md"
    current = path.read_text(encoding="utf-8")
    assert splice(current, render()) == current, (
        "references/compare.md is stale: run "
        "`python -m evalkit.comparison.fingerprint_docs --write`"
    )
    assert current.rstrip().endswith(END), "the fingerprint section closes the file"


def test_docs_have_one_subsection_per_field():
    text = render()
    for name in FIELDS:
        assert f"\n### {name}\n" in text and f"(#{name})" in text, name
        assert TABLE[name].why in text


# -- a run.sub the real launcher renders ------------------------------------------------------
@pytest.mark.launcher
def test_fingerprint_of_a_run_sub_the_real_launcher_renders(tmp_path):
    """nel 0.2.6 renders the job; with no artifacts yet, the config is the one run.sub
    embeds (config_ef.yaml) and the serve command the base64 deployment_cmd.sh."""
    from helpers.nel import dry_run

    result = dry_run(DATA / "fingerprint" / "gpqa_fp8.yaml")
    assert result.returncode == 0, result.error
    (script,) = result.scripts
    task = tmp_path / "20261203_101500-0123456789abcdef" / "simple_evals.gpqa_diamond.0"
    (task / "logs").mkdir(parents=True)
    (task / "run.sub").write_text(script, encoding="utf-8")
    fp = read_fingerprint(_one(task))
    assert fp.value("checkpoint") == "/lustre/fake/checkpoints/model-fp8"
    images = fp.value("images")
    assert images["deployment"].endswith("@sha256:" + "0123456789abcdef" * 4)
    assert "evaluation" not in images
    assert fp.value("harness_version").startswith("nvcr.io/nvidia/eval-factory/simple-evals:")
    assert fp.value("max_model_len") == 32000  # 32k, as vLLM reads it
    assert fp.value("reasoning_parser") == "qwen3"
    assert fp.value("chat_template_kwargs") == {"enable_thinking": False}
    assert fp.value("system_prompt") == "Answer with one letter."
    assert (fp.value("temperature"), fp.value("max_new_tokens")) == (0.6, 4096)
    assert fp["temperature"].source.startswith("run.sub:")
    assert "(config_ef.yaml:" in fp["temperature"].source

    base = read_fingerprint(_one(task_dir("baseline", GPQA)))
    diffs = {d.field: d for d in diff_fingerprints(base, fp)}
    assert "checkpoint" not in diffs
    blocking = {n for n, d in diffs.items() if d.consequence == NOT_COMPARABLE}
    assert blocking == {
        "temperature",
        "max_new_tokens",
        "chat_template_kwargs",
        "system_prompt",
        "reasoning_traces",
    }
    warned = {n for n, d in diffs.items() if d.consequence == WARNING}
    assert {"max_model_len", "reasoning_parser"} <= warned
    assert diffs["images"].consequence == ACCEPT


# -- hostile and broken input -----------------------------------------------------------------
def test_unreadable_sources_leave_fields_unrecorded(tmp_path):
    task = _copy("baseline", GPQA, tmp_path)
    (task / "artifacts" / "run_config.yml").write_text("config: [unclosed\n", encoding="utf-8")
    (task / "artifacts" / "results.yml").write_text("config: [unclosed\n", encoding="utf-8")
    (log,) = (task / "logs").glob("server-0-*.log")
    log.write_bytes(b"\x00\xff\xfe garbage \x1b[31m" * 1000 + b"\n")
    fp = read_fingerprint(_one(task))
    # run.sub still speaks; the broken config and the garbage log say nothing.
    assert fp.value("checkpoint") == "/lustre/fake/checkpoints/model-bf16"
    assert fp.value("max_model_len") == 1_100_000
    assert fp.value("temperature") is None and fp.value("vllm_version") is None
    assert fp.value("system_prompt") is None


def test_long_repetitive_log_lines_cost_linear_time():
    """A log line repeating the markers a hundred thousand times (the line cap is 1 MB)."""
    import time

    line = "non-default args: Initializing a V1 LLM engine " * 20_000 + "\n"
    began = time.perf_counter()
    facts = read_banner([line] * 3)
    assert time.perf_counter() - began < 2.0
    assert facts.max_model_len is None and facts.reasoning_parser is None


def test_values_are_data_and_secrets_are_redacted(tmp_path):
    task = _copy("baseline", GPQA, tmp_path)
    config = task / "artifacts" / "run_config.yml"
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"
    _edit(
        config,
        "      use_system_prompt: false\n    model_id: served-model\n",
        "      use_system_prompt: true\n      custom_system_prompt: '<b>Be brief</b> "
        + token
        + "'\n    model_id: served-model\n",
    )
    fp = read_fingerprint(_one(task))
    prompt = fp.value("system_prompt")
    assert prompt.startswith("<b>Be brief</b> ")  # kept as text: escaping is render's job
    assert token not in prompt and token not in str(fp.to_json())


# -- the harness's own word: lm-eval's `Using gen_kwargs` -------------------------------------
def test_lm_eval_client_log_gives_the_settings_the_requests_carried():
    fp = read_fingerprint(_one(DATA / "outcomes" / "lm_eval.0"))
    assert fp["max_new_tokens"].value == 64
    assert fp["max_new_tokens"].source == "logs/client-5100001.log:14"
    assert (fp.value("temperature"), fp.value("top_p")) == (1e-07, 0.9999999)


def test_lm_eval_pair_with_another_cap_is_not_comparable(tmp_path):
    """The issue's case on the lm-eval harness: the candidate's run capped at 32 tokens,
    as its config and its harness line say."""
    cand = tmp_path / "cand" / "lm_eval.0"
    shutil.copytree(DATA / "outcomes" / "lm_eval.0", cand)
    _edit(
        cand / "artifacts" / "run_config.yml",
        "    max_new_tokens: 64\n",
        "    max_new_tokens: 32\n",
    )
    _edit(cand / "logs" / "client-5100001.log", "'max_gen_toks': 64,", "'max_gen_toks': 32,")
    base = read_fingerprint(_one(DATA / "outcomes" / "lm_eval.0"))
    diffs = diff_fingerprints(base, read_fingerprint(_one(cand)))
    assert [d.field for d in diffs if d.consequence == NOT_COMPARABLE] == ["max_new_tokens"]


def test_a_job_resumed_on_another_vllm_shows_both_versions(tmp_path):
    task = _with_server_log(tmp_path, "baseline", "b", vllm_startup(START))
    (task / "logs" / "server-0-5200000-0.log").write_text(
        vllm_startup(START, version="0.27.0"), encoding="utf-8"
    )
    assert read_fingerprint(_one(task)).value("vllm_version") == "0.26.0 | 0.27.0"


def test_mrcr_sampling_comes_from_the_rollouts_once_the_pass_is_made():
    run = _one(task_dir("baseline", "nemo_gym.0"))
    assert read_fingerprint(run)["temperature"].source.startswith("artifacts/run_config.yml")
    run.scan()
    after = read_fingerprint(run)["temperature"]
    assert after.source.startswith("artifacts/evaluator_rollouts.jsonl")
    assert after.value == 1.0


def test_legacy_keys_and_the_interceptor_they_become_compare_equal(tmp_path):
    """nemo-evaluator writes run_config.yml with the interceptors the legacy keys became
    (tests/data/outcomes/lm_eval.0); a baseline written with legacy keys must not differ
    from it by spelling alone."""
    task = tmp_path / "lm_eval.0"
    shutil.copytree(DATA / "outcomes" / "lm_eval.0", task)
    _edit(
        task / "artifacts" / "run_config.yml",
        "      - config: {}\n        enabled: true\n        name: endpoint\n",
        "      - config:\n          end_reasoning_token: </think>\n"
        "          enable_reasoning_tracking: true\n"
        "        enabled: true\n        name: reasoning\n"
        "      - config: {}\n        enabled: true\n        name: endpoint\n",
    )
    interceptor = read_fingerprint(_one(task))["reasoning_traces"]
    legacy = read_fingerprint(_one(task_dir("baseline", GPQA)))["reasoning_traces"]
    assert interceptor.value == legacy.value == REASONING_ON


def test_a_launcher_config_merges_the_task_block_over_the_evaluation_wide_one(tmp_path):
    """Without run_config.yml the launcher's own copy is read: the GPQA task's block
    (`use_caching: true` only) over the evaluation-wide adapter settings."""
    task = _copy("baseline", GPQA, tmp_path)
    (task / "artifacts" / "run_config.yml").unlink()
    unresolved = task_dir("baseline", GPQA) / "artifacts" / "run_config.yml"
    import yaml

    launcher_config = yaml.safe_load(unresolved.read_text(encoding="utf-8"))["metadata"][
        "launcher_resolved_config"
    ]
    (task / "artifacts" / "launcher_unresolved_config.yaml").write_text(
        yaml.safe_dump(launcher_config), encoding="utf-8"
    )
    fp = read_fingerprint(_one(task))
    assert fp.value("reasoning_traces") == REASONING_ON
    assert fp.value("chat_template_kwargs") == {"enable_thinking": True}
    assert fp.value("max_new_tokens") == 16384  # the task's own, not the global null
    assert fp.value("limit_samples") == "none (all items)"  # the task's null, not 90
    assert fp["max_new_tokens"].source.startswith("artifacts/launcher_unresolved_config.yaml:")


def test_values_yaml_constructs_become_json_text(tmp_path):
    task = _copy("baseline", GPQA, tmp_path)
    config = task / "artifacts" / "run_config.yml"
    _edit(
        config,
        "    temperature: 1.0\n    top_p: 0.95\n  type:",
        "    temperature: .nan\n    top_p: 2026-01-01\n  type:",
    )
    doc = read_fingerprint(_one(task)).to_json()
    assert (doc["temperature"]["value"], doc["top_p"]["value"]) == ("nan", "2026-01-01")
    json.dumps(doc, allow_nan=False)


def test_dataset_identity_folds_ids_and_prompts_in_any_order():
    one = dataset_identity([("1", "aa"), ("2", "bb")])
    assert one == dataset_identity([("2", "bb"), ("1", "aa")])
    assert one.item_count == 2 and len(one.digest) == 64
    assert one != dataset_identity([("1", "aa"), ("2", "bc")])  # one prompt changed
    assert one != dataset_identity([("12", "aa"), ("", "bb")])  # lengths keep pairs apart
