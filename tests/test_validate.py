"""`evalkit validate`: every check healthy and broken, the verdict, the exit code.

Run directories come from tests/helpers/rungen.py (the nel 0.2.6 layout with Gym-format
rollouts and aggregates), written into tmp_path and then broken one way at a time.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evalkit.benchmarks.mrcr.variants import GYM_PIN
from evalkit.checks.model import (
    INCOMPLETE,
    INVALID,
    Expectation,
    expected_rollouts,
    failed,
    passed,
    verdict,
    warned,
    worst,
)
from evalkit.checks.rules.aggregate_agreement import check_aggregate
from evalkit.checks.rules.gym_pin import check_gym_pin
from evalkit.checks.rules.log_errors import check_log_errors
from evalkit.checks.rules.output_limit import check_output_limit
from evalkit.checks.rules.pre_cmd import check_pre_cmd
from evalkit.checks.rules.preemption import check_preemption
from evalkit.checks.rules.prefix_gate import check_prefix_gate
from evalkit.checks.rules.rollout_count import check_rollout_count
from evalkit.checks.rules.score import check_score
from evalkit.runs.logscan import scan_log
from evalkit.runs.settings import embedded_configs, settings_from

# ---------------------------------------------------------------- pure check functions


def test_verdict_ranks_invalid_over_incomplete_and_ignores_warnings():
    ok = passed("a", "x")
    warn = warned("b", "x")
    short = failed("c", INCOMPLETE, "x")
    bad = failed("d", INVALID, "x")
    assert verdict([ok, warn]) == "valid"
    assert verdict([ok, short, warn]) == "incomplete"
    assert verdict([short, bad]) == "invalid"
    assert worst(["valid", "invalid", "incomplete"]) == "invalid"


@pytest.mark.parametrize(
    ("rows", "repeats", "limit", "override", "want"),
    [
        (2363, 1, None, None, 2363),
        (1470, 1, None, None, 1470),
        (2400, 4, None, None, 9600),
        (2363, 1, 20, None, 20),
        (10, 1, 20, None, 10),  # a limit above the variant's count changes nothing
        (2363, 1, 20, 7, 7),  # --expected wins over everything
        (None, 1, None, None, None),
    ],
)
def test_expected_rollouts(rows, repeats, limit, override, want):
    got = expected_rollouts(rows, "cfg", repeats=repeats, limit=limit, override=override)
    assert (got.count if got else None) == want


def test_rollout_count_fewer_is_incomplete_more_is_invalid():
    exp = Expectation(2363, "config_n3_1m.yaml")
    assert check_rollout_count(2363, exp).status == "pass"
    short = check_rollout_count(2362, exp)
    assert (short.status, short.kind) == ("fail", "incomplete")
    assert "1 missing" in short.message
    extra = check_rollout_count(2364, exp)
    assert (extra.status, extra.kind) == ("fail", "invalid")
    assert check_rollout_count(5, None).status == "warn"


@pytest.mark.parametrize(
    ("mean", "status"),
    [
        (0.55, "pass"),
        (0.45, "pass"),
        (0.449, "warn"),
        (0.3, "warn"),
        (0.25, "warn"),
        (0.2499, "fail"),
        (0.0, "fail"),
    ],
)
def test_prefix_gate_bounds(mean, status):
    check = check_prefix_gate(mean)
    assert check.status == status
    if status == "fail":
        assert check.kind == "invalid" and "reasoning leaking" in check.message


@pytest.mark.parametrize(
    ("length", "total", "status"),
    [
        (24, 1000, "pass"),
        (50, 1000, "pass"),
        (51, 1000, "warn"),
        (100, 1000, "warn"),
        (101, 1000, "fail"),
        (120, 1000, "fail"),
    ],
)
def test_output_limit_bounds(length, total, status):
    check = check_output_limit(length, total, "test")
    assert check.status == status
    assert check.kind == ("invalid" if status == "fail" else None)


def test_aggregate_agreement_tolerance_and_missing_keys():
    strata = {"2": 40.0, "4": 30.0, "8": 20.0}
    stored = {"pass@1/accuracy": 30.0 * (1 + 5e-7)}
    stored.update({f"n_needles={k}/pass@1/accuracy": x for k, x in strata.items()})
    assert check_aggregate(stored, 30.0, strata).status == "pass"
    assert (
        check_aggregate({**stored, "pass@1/accuracy": 30.0 * (1 + 2e-6)}, 30.0, strata).kind
        == "invalid"
    )
    missing = {k: x for k, x in stored.items() if not k.startswith("n_needles=8")}
    assert "n_needles=8/pass@1/accuracy missing" in check_aggregate(missing, 30.0, strata).message
    extra = {**stored, "n_needles=16/pass@1/accuracy": 1.0}
    assert check_aggregate(extra, 30.0, strata).status == "fail"
    absent = check_aggregate(None, None, {})
    assert (absent.status, absent.kind) == ("fail", "incomplete")


def test_scan_log_pin_banner_and_patterns():
    lines = [
        "Resolved 40 packages",
        " + tiktoken==0.9.0",  # a healthy install line is not a failure
        "=== NeMo Gym commit ===",
        "",
        GYM_PIN,
        "ModuleNotFoundError: No module named 'tiktoken'",
        "Traceback (most recent call last):",
    ]
    scan = scan_log("client-1.log", lines)
    assert scan.commits == [(5, GYM_PIN)]
    assert scan.counts == {"pre_cmd": 1, "errors": 1}
    assert check_gym_pin([scan], GYM_PIN, "test").status == "pass"
    assert check_pre_cmd([scan]).kind == "invalid"
    healthy = scan_log("client-1.log", lines[:5])
    assert check_pre_cmd([healthy]).status == "pass"
    assert check_log_errors([healthy]).status == "pass"


@pytest.mark.parametrize(
    "printed",
    ["a431501", "0" * 40, ""],
    ids=["short-sha", "other-sha", "nothing-after-banner"],
)
def test_gym_pin_needs_the_full_pinned_sha(printed):
    lines = ["=== NeMo Gym commit ==="] + ([printed] if printed else [])
    check = check_gym_pin([scan_log("client-9.log", lines)], GYM_PIN, "test")
    assert (check.status, check.kind) == ("fail", "invalid")


def test_gym_pin_without_banner_or_log_is_invalid():
    assert check_gym_pin([scan_log("c.log", ["hello"])], GYM_PIN, "t").kind == "invalid"
    assert check_gym_pin([], GYM_PIN, "t").kind == "invalid"


# The old (V0) engine's own warning, vllm/core/scheduler.py (logged every 50th preemption
# with the running total); still accepted for logs of older images.
V0_PREEMPTED = (
    "WARNING 11-30 05:58:13 scheduler.py:1560] Sequence group 7 is preempted by "
    "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can "
    "affect the end-to-end performance. Increase gpu_memory_utilization or "
    "tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=51"
)


def test_preemption_in_old_engine_wording_is_a_warning():
    scan = scan_log("server-1-4100000-0.log", ["INFO ok", V0_PREEMPTED])
    check = check_preemption([scan])
    assert check.status == "warn" and "server-1-4100000-0.log:2" in check.message
    assert check.message.startswith("51 vLLM preemption(s)")  # the engine's own total
    assert check_preemption([scan_log("s.log", ["Preempted 3 requests"])]).status == "warn"


def _stats(engine: int, waiting: int, usage: float, preemptions: int = 0) -> str:
    """A vLLM v0.26.0 stats line, vllm/v1/metrics/loggers.py LoggingStatLogger.log()."""
    count = f"Preemptions: {preemptions}, " if preemptions else ""
    return (
        f"(APIServer pid=412) INFO 11-30 05:58:11 [loggers.py:310] Engine {engine:03d}: "
        "Avg prompt throughput: 48211.3 tokens/s, Avg generation throughput: 912.4 tokens/s, "
        f"Running: 32 reqs, Waiting: {waiting} reqs, {count}GPU KV cache usage: {usage:.1f}%, "
        "Prefix cache hit rate: 12.1%"
    )


KV_LINES = [  # vllm/v1/core/kv_cache_utils.py, v0.26.0
    "(EngineCore_DP0 pid=655) INFO 11-30 03:19:40 [kv_cache_utils.py:2177] "
    "GPU KV cache size: 1,310,720 tokens",
    "(EngineCore_DP0 pid=655) INFO 11-30 03:19:40 [kv_cache_utils.py:2179] "
    "Maximum concurrency for 1,100,000 tokens per request: 1.19x",
]


def test_v1_stats_lines_are_summed_with_peak_kv_and_the_fix():
    first = scan_log(
        "server-0-9-0.log",
        [*KV_LINES, _stats(0, 0, 61.0), _stats(0, 30, 99.8, 3), _stats(1, 12, 97.0, 2)],
    )
    second = scan_log("server-1-9-0.log", [_stats(0, 4, 99.9, 5)])
    assert (first.vllm.preemptions, first.vllm.kv_cache_tokens) == (5, 1_310_720)
    assert first.vllm.concurrency == (1_100_000, 1.19)
    check = check_preemption([first, second])
    assert check.status == "warn"
    assert check.message.startswith("10 vLLM preemption(s)")
    assert "peak GPU KV cache usage 99.9%" in check.message
    assert "--max-num-seqs" in check.message and "1.19x requests of 1,100,000" in check.message
    assert "server-0-9-0.log:4" in check.message  # the first stats line with Preemptions


def test_stats_lines_without_preemptions_pass_and_report_pressure():
    calm = scan_log("server-0-9-0.log", [*KV_LINES, _stats(0, 0, 40.0), _stats(0, 0, 71.5)])
    check = check_preemption([calm])
    assert check.status == "pass" and "2 vLLM stats lines" in check.message
    assert "peak GPU KV cache usage 71.5%" in check.message
    full = scan_log("server-0-9-0.log", [_stats(0, 0, 60.0), _stats(0, 18, 100.0)])
    check = check_preemption([full])
    assert check.status == "pass" and "18 requests waiting" in check.message
    # `Preemptions: 0` is never printed by v0.26; if some build does, it is no preemption.
    zero = scan_log("s.log", [_stats(0, 0, 50.0).replace("GPU KV", "Preemptions: 0, GPU KV")])
    assert check_preemption([zero]).status == "pass"


def test_score_check_over_results_yml_scores():
    from evalkit.runs.results import iter_scores

    results = {
        "results": {
            "tasks": {"gpqa": {"metrics": {"acc": {"scores": {"acc": {"value": 61.5}}}}}},
            "groups": {"g": {"metrics": {"m": {"scores": {"s": {"value": float("nan")}}}}}},
        }
    }
    scores = list(iter_scores(results))
    assert [(s.key, s.value) for s in scores] == [("gpqa_acc", 61.5), ("g_m_s", None)]
    assert check_score(scores).kind == "invalid"
    assert check_score(scores[:1]).status == "pass"
    assert check_score([]).kind == "incomplete"


# ------------------------------------------------------------- whole runs via the CLI

from helpers.rungen import write_mrcr_run  # noqa: E402


def mrcr_run(tmp_path: Path, name: str = "run", **kwargs) -> Path:
    """A healthy canary by default: ++limit=N in the config and exactly N rollouts."""
    n = kwargs.pop("n_items", 30)
    kwargs.setdefault("limit", n)
    return write_mrcr_run(tmp_path / name, n_items=n, **kwargs)


def validate_json(run_cli, *argv):
    code, out, err = run_cli("validate", *map(str, argv), "--format", "json")
    assert out, err
    doc = json.loads(out)
    return code, doc, {c["id"]: c for c in doc["checks"]}


def test_healthy_canary_is_valid_in_text_and_json(tmp_path, run_cli):
    task = mrcr_run(tmp_path, n_items=20)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid")
    assert set(checks) == {
        "rollout-count",
        "duplicates",
        "truncation",
        "gym-pin",
        "prefix-gate",
        "output-limit",
        "aggregate-agreement",
        "pre-cmd",
        "preemption",
        "log-errors",
        "http-retries",
        "gym-version",  # info: the version the client log names
    }
    assert all(c["status"] == "pass" for c in checks.values()), checks
    assert "20 of 20" in checks["rollout-count"]["message"]
    assert "++limit=20" in checks["rollout-count"]["message"]
    code, out, err = run_cli("validate", task)
    lines = out.strip().splitlines()
    assert code == 0 and err == ""
    verdict_at = lines.index("verdict: valid")
    # then what it checked, by rule name, and the next commands on this very run
    assert lines[verdict_at + 2].startswith("checked (12 checks): rollout-count, duplicates")
    assert lines[-2:] == [
        f"  evalkit score {task}",
        f"  evalkit compare BASELINE_RUN {task} --margin 1.0 (against its baseline)",
    ]
    assert sum(1 for line in lines if re.match(r"\s+\[(ok|warn|FAIL)\]", line)) == 12


@pytest.mark.parametrize("where", ["invocation", "artifacts"])
def test_every_run_path_form_is_accepted(tmp_path, run_cli, where):
    task = mrcr_run(tmp_path)
    path = task.parent if where == "invocation" else task / "artifacts"
    code, doc, _ = validate_json(run_cli, path)
    assert (code, doc["verdict"]) == (0, "valid")


def test_artifacts_copied_without_logs_cannot_prove_the_pin(tmp_path, run_cli):
    task = mrcr_run(tmp_path)
    copy = tmp_path / "local-copy"
    shutil.copytree(task / "artifacts", copy)
    code, doc, checks = validate_json(run_cli, copy)
    assert (code, doc["verdict"]) == (1, "invalid")
    assert checks["gym-pin"]["kind"] == "invalid" and "client log" in checks["gym-pin"]["message"]
    assert all(
        c["status"] == "pass"
        for k, c in checks.items()
        if k not in ("gym-pin", "preemption", "log-errors")
    )


def test_short_run_against_the_variant_count_is_incomplete(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, n_items=30)  # no limit: the 1M variant expects 2363
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "incomplete")
    assert checks["rollout-count"]["kind"] == "incomplete"
    assert "30 of 2363" in checks["rollout-count"]["message"]


def test_128k_variant_expects_1470(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, n_items=12, variant="config_n3_128k.yaml")
    _, _, checks = validate_json(run_cli, task)
    assert "12 of 1470" in checks["rollout-count"]["message"]


def test_more_rollouts_than_the_canary_limit_is_invalid(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, n_items=30)
    config = task / "artifacts" / "run_config.yml"
    config.write_text(config.read_text().replace("++num_repeats=1", "++num_repeats=1 ++limit=20"))
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "invalid")
    assert checks["rollout-count"]["kind"] == "invalid"
    assert "30 rollouts but 20 expected" in checks["rollout-count"]["message"]


def test_expected_overrides_the_variant_count(tmp_path, run_cli):
    task = write_mrcr_run(tmp_path, n_items=30)
    code, doc, checks = validate_json(run_cli, task, "--expected", 30)
    assert (code, doc["verdict"]) == (0, "valid")
    assert "--expected" in checks["rollout-count"]["message"]
    code, doc, _ = validate_json(run_cli, task, "--expected", 31)
    assert (code, doc["verdict"]) == (1, "incomplete")
    code, _, err = run_cli("validate", task, "--expected", "0")
    assert code == 2 and "must be positive" in err


def test_identical_duplicates_warn_and_conflicting_ones_invalidate(tmp_path, run_cli):
    task = mrcr_run(tmp_path, "same", duplicate=3)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid")
    assert (
        checks["duplicates"]["status"] == "warn"
        and "3 identical" in checks["duplicates"]["message"]
    )
    assert checks["rollout-count"]["status"] == "pass"  # duplicates are counted once

    task = mrcr_run(tmp_path, "conflict", conflicting_duplicate=1)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "invalid")
    assert (checks["duplicates"]["status"], checks["duplicates"]["kind"]) == ("fail", "invalid")


def test_truncated_last_line_is_incomplete(tmp_path, run_cli):
    task = mrcr_run(tmp_path, truncate_last=True)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "incomplete")
    assert checks["truncation"]["kind"] == "incomplete"
    assert checks["rollout-count"]["kind"] == "incomplete"  # the cut record is not counted
    assert checks["aggregate-agreement"]["status"] == "warn"  # no fair comparison left


@pytest.mark.parametrize(
    "logged",
    [GYM_PIN[:7], "f" * 40],
    ids=["short-sha", "wrong-sha"],
)
def test_wrong_commit_in_client_log_is_invalid(tmp_path, run_cli, logged):
    task = mrcr_run(tmp_path, logged_commit=logged)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "invalid")
    assert checks["gym-pin"]["kind"] == "invalid" and logged in checks["gym-pin"]["message"]


def test_missing_commit_banner_is_invalid(tmp_path, run_cli):
    task = mrcr_run(tmp_path)
    (log,) = (task / "logs").glob("client-*.log")
    log.write_text("\n".join(x for x in log.read_text().splitlines() if "NeMo Gym commit" not in x))
    _, doc, checks = validate_json(run_cli, task)
    assert doc["verdict"] == "invalid" and "=== NeMo Gym commit ===" in checks["gym-pin"]["message"]


def test_pin_comes_from_the_run_config(tmp_path, run_cli):
    other = "0123456789abcdef0123456789abcdef01234567"
    task = mrcr_run(tmp_path, gym_commit=other)  # config and log both say `other`
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid")
    assert other in checks["gym-pin"]["message"]
    task = mrcr_run(tmp_path, "mismatch", gym_commit=other, logged_commit=GYM_PIN)
    _, doc, checks = validate_json(run_cli, task)
    assert (
        doc["verdict"] == "invalid" and "install_on_the_fly.commit" in checks["gym-pin"]["message"]
    )


def _prefix_mean(check: dict) -> float:
    return float(re.search(r"prefix_matched (\d\.\d+)", check["message"]).group(1))


def test_leaky_run_is_invalid_and_borderline_warns(tmp_path, run_cli):
    code, doc, checks = validate_json(run_cli, mrcr_run(tmp_path, "leak", leak_fraction=0.9))
    assert _prefix_mean(checks["prefix-gate"]) < 0.25
    assert (code, doc["verdict"]) == (1, "invalid")
    assert "reasoning leaking" in checks["prefix-gate"]["message"]

    code, doc, checks = validate_json(run_cli, mrcr_run(tmp_path, "edge", leak_fraction=0.6))
    assert 0.25 <= _prefix_mean(checks["prefix-gate"]) < 0.35
    assert checks["prefix-gate"]["status"] == "warn"
    assert (code, doc["verdict"]) == (0, "valid")


@pytest.mark.parametrize(
    ("fraction", "status", "verdict"),
    [(0.12, "fail", "invalid"), (0.07, "warn", "valid")],
)
def test_length_capped_share(tmp_path, run_cli, fraction, status, verdict):
    task = mrcr_run(tmp_path, n_items=100, length_fraction=fraction)
    stats = json.loads((task / "artifacts" / "eval_factory_metrics.json").read_text())
    share = stats["response_stats"]["finish_reason"]["length"] / stats["response_stats"]["count"]
    assert (share > 0.10) == (status == "fail") and share > 0.05  # the fixture is what we think
    code, doc, checks = validate_json(run_cli, task)
    assert checks["output-limit"]["status"] == status
    assert doc["verdict"] == verdict and code == (0 if verdict == "valid" else 1)


def test_output_limit_falls_back_to_incomplete_details(tmp_path, run_cli):
    task = mrcr_run(tmp_path, n_items=100, length_fraction=0.12)
    (task / "artifacts" / "eval_factory_metrics.json").unlink()
    _, doc, checks = validate_json(run_cli, task)
    assert checks["output-limit"]["status"] == "fail"
    assert "incomplete_details" in checks["output-limit"]["message"]


def test_tampered_aggregate_is_invalid_and_missing_one_incomplete(tmp_path, run_cli):
    code, doc, checks = validate_json(run_cli, mrcr_run(tmp_path, "t", aggregate_offset=0.5))
    assert (code, doc["verdict"]) == (1, "invalid")
    assert "disagrees" in checks["aggregate-agreement"]["message"]

    code, doc, checks = validate_json(run_cli, mrcr_run(tmp_path, "m", aggregate=False))
    assert (code, doc["verdict"]) == (1, "incomplete")
    assert checks["aggregate-agreement"]["kind"] == "incomplete"


def test_aggregate_for_another_agent_is_invalid(tmp_path, run_cli):
    task = mrcr_run(tmp_path)
    path = task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json"
    path.write_text(path.read_text().replace("mrcr_n3_1m_benchmark", "mrcr_n3_128k_benchmark"))
    _, doc, checks = validate_json(run_cli, task)
    assert doc["verdict"] == "invalid"
    assert "mrcr_n3_1m_benchmark_simple_agent" in checks["aggregate-agreement"]["message"]


def test_module_not_found_in_client_log_is_invalid(tmp_path, run_cli):
    extra = (
        " + tiktoken==0.9.0\n"
        "Traceback (most recent call last):\n"
        "ModuleNotFoundError: No module named 'tiktoken'\n"
    )
    code, doc, checks = validate_json(run_cli, mrcr_run(tmp_path, client_log_extra=extra))
    assert (code, doc["verdict"]) == (1, "invalid")
    assert checks["pre-cmd"]["kind"] == "invalid" and "client-" in checks["pre-cmd"]["message"]
    assert checks["log-errors"]["status"] == "warn"


def test_preemption_in_server_log_only_warns(tmp_path, run_cli):
    code, doc, checks = validate_json(
        run_cli, mrcr_run(tmp_path, server_log_extra=V0_PREEMPTED + "\n")
    )
    assert (code, doc["verdict"]) == (0, "valid")
    assert checks["preemption"]["status"] == "warn"


def test_vllm_026_stats_preemptions_make_validate_warn(tmp_path, run_cli):
    """The V1 engine logs no preemption line of its own: only `Preemptions: K` in its
    periodic stats lines (vLLM v0.26.0, vllm/v1/metrics/loggers.py)."""
    task = mrcr_run(tmp_path, instances=2, server_preemptions=[0, 0, 4, 0, 7], peak_kv_usage=99.6)
    logs = sorted(p.name for p in (task / "logs").glob("server-*.log"))
    assert logs == ["server-0-4100000-0.log", "server-1-4100000-0.log"]
    assert "Preempted" not in (task / "logs" / logs[0]).read_text()
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid")  # slower, not wrong
    message = checks["preemption"]["message"]
    assert checks["preemption"]["status"] == "warn"
    assert message.startswith("11 vLLM preemption(s)") and "99.6%" in message
    assert "--max-num-seqs" in message


@pytest.mark.slow
def test_full_size_1m_run_is_valid(tmp_path, run_cli):
    task = write_mrcr_run(
        tmp_path, n_items=2363, prompt_chars=200, answer_chars=(40, 120), skill=0.6
    )
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid"), checks
    assert "2363 of 2363" in checks["rollout-count"]["message"]


# ------------------------------------------------------------------- unreadable input


def _rewrite_line(task: Path, index: int, new: bytes) -> None:
    path = task / "artifacts" / "evaluator_rollouts.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[index] = new
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b'{"reward": 0.5, "expected_answer": "\xff\xfe"}\n', "UTF-8"),
        (b'{"reward": 0.5,\n', "JSON"),
    ],
    ids=["non-utf8", "malformed-json"],
)
def test_bad_middle_line_exits_2_with_one_line(tmp_path, run_cli, payload, words):
    task = mrcr_run(tmp_path)
    _rewrite_line(task, 5, payload)
    code, out, err = run_cli("validate", task)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "evaluator_rollouts.jsonl:6:" in err and words in err


def test_missing_path_exits_2_and_malformed_aggregate_is_invalid(tmp_path, run_cli):
    code, _, err = run_cli("validate", tmp_path / "nope")
    assert code == 2 and "no such file" in err
    task = mrcr_run(tmp_path)
    (task / "artifacts" / "evaluator_rollouts_aggregate_metrics.json").write_text("[{")
    # The run's own output is broken: a failed check, not a usage error (issue 12).
    code, doc, checks = validate_json(run_cli, task)
    assert code == 1 and doc["verdict"] == "invalid"
    assert checks["aggregate-agreement"]["status"] == "fail"
    assert "evaluator_rollouts_aggregate_metrics.json" in checks["aggregate-agreement"]["message"]


# ------------------------------------------------------------------------- other tasks


def generic_task(invocation: Path, name: str, score="61.5", log: str = "all good\n") -> Path:
    task = invocation / name
    (task / "artifacts").mkdir(parents=True)
    (task / "logs").mkdir()
    if score is not None:
        (task / "artifacts" / "results.yml").write_text(
            "results:\n  tasks:\n    gpqa:\n      metrics:\n        acc:\n          scores:\n"
            f"            acc:\n              value: {score}\n"
        )
    (task / "artifacts" / "eval_factory_metrics.json").write_text(
        json.dumps({"response_stats": {"count": 200, "finish_reason": {"stop": 196, "length": 4}}})
    )
    (task / "logs" / "client-77.log").write_text(log)
    return task


def test_generic_task_with_a_vllm_server_log_gets_the_preemption_check(tmp_path, run_cli):
    task = generic_task(tmp_path / "inv", "ns_aa_lcr.0")
    (task / "logs" / "server-0-77-0.log").write_text(
        "\n".join([*KV_LINES, _stats(0, 30, 99.9, 3), _stats(0, 33, 99.9, 5)]) + "\n"
    )
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (0, "valid")
    assert checks["preemption"]["status"] == "warn"
    assert checks["preemption"]["message"].startswith("8 vLLM preemption(s)")
    (task / "logs" / "server-0-77-0.log").unlink()
    _code, _doc, checks = validate_json(run_cli, task)
    assert "preemption" not in checks  # no deployment log: nothing to read


@pytest.mark.parametrize(
    ("score", "log", "verdict", "failing"),
    [
        ("61.5", "ok\n", "valid", None),
        (None, "ok\n", "incomplete", "results-file"),
        (".nan", "ok\n", "invalid", "score"),
        ("61.5", "RuntimeError\nCUDA out of memory\nKilled\n", "valid", None),
    ],
    ids=["healthy", "no-results", "nan-score", "log-errors-warn"],
)
def test_generic_task_minimal_checks(tmp_path, run_cli, score, log, verdict, failing):
    task = generic_task(tmp_path, "ns_gpqa.0", score, log)
    code, doc, checks = validate_json(run_cli, task)
    assert doc["verdict"] == verdict
    assert doc["tasks"][0]["benchmark"] == "generic"
    if failing:
        assert checks[failing]["status"] == "fail"
    if "Killed" in log:
        assert (
            checks["log-errors"]["status"] == "warn" and "Killed" in checks["log-errors"]["message"]
        )


def test_invocation_with_several_tasks_names_each(tmp_path, run_cli):
    task = mrcr_run(tmp_path)
    generic_task(task.parent, "ns_gpqa.1", score=None)
    code, doc, _ = validate_json(run_cli, task.parent)
    assert (code, doc["verdict"]) == (1, "incomplete")
    assert {t["task"]: t["verdict"] for t in doc["tasks"]} == {
        "nemo_gym.0": "valid",
        "ns_gpqa.1": "incomplete",
    }
    assert {c["task"] for c in doc["checks"]} == {"nemo_gym.0", "ns_gpqa.1"}
    code, out, _ = run_cli("validate", task.parent)
    assert "task verdict: incomplete" in out and "\nverdict: incomplete\n" in out
    assert out.strip().endswith(f"then: evalkit validate {task.parent}")


def test_malformed_results_yml_exits_2(tmp_path, run_cli):
    task = generic_task(tmp_path, "ns_gpqa.0")
    (task / "artifacts" / "results.yml").write_text("results: [unclosed\n")
    code, _, err = run_cli("validate", task)
    assert code == 2 and "results.yml" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------- canary detection from the real run.sub


def test_commented_limit_in_run_sub_is_not_a_canary():
    import base64

    config = "config:\n  params:\n    limit_samples: null\n    extra: {cmd: '++num_repeats=1'}\n"
    blob = base64.b64encode(config.encode()).decode()
    run_sub = (
        "#!/bin/bash\n"
        "#   # Canary: -o ...limit_samples=10 reaches the gym as ++limit=10\n"
        f'echo "{blob}" | base64 -d > config_ef.yaml && run\n'
    )
    settings = settings_from(embedded_configs(run_sub))
    assert settings.limit is None and settings.num_repeats == 1


@pytest.mark.launcher
@pytest.mark.parametrize("canary", [False, True], ids=["full", "canary"])
def test_settings_from_a_real_dry_run_script(tmp_path, run_cli, repo_root, canary):
    from helpers.nel import blank_paths, dry_run

    template = repo_root / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
    if not template.is_file():
        pytest.skip("the MRCR template is not in this tree yet")
    fill = {}
    for key in blank_paths(template):
        if key.endswith(("container", "image")):
            fill[key] = "nvcr.io/example/gym-git:1.0"
        elif key.endswith(("dir", "path")):
            fill[key] = str(tmp_path / "abs")
        else:
            fill[key] = "auto"
    if canary:
        fill["++evaluation.nemo_evaluator_config.config.params.limit_samples"] = "10"
    result = dry_run(template, fill)
    assert result.returncode == 0, result.stderr[-2000:]
    (script,) = result.scripts
    settings = settings_from(embedded_configs(script))
    assert settings.variant == "config_n3_1m.yaml"
    assert settings.gym_commit == GYM_PIN
    assert settings.limit == (10 if canary else None)

    # The whole command on a run whose artifacts lost their config: run.sub decides.
    task = write_mrcr_run(tmp_path / "run", n_items=10)
    (task / "artifacts" / "run_config.yml").unlink()
    (task / "run.sub").write_text(script)
    code, doc, checks = validate_json(run_cli, task)
    if canary:
        assert (code, doc["verdict"]) == (0, "valid"), checks
    else:
        assert "10 of 2363" in checks["rollout-count"]["message"]


def test_generic_task_runs_the_client_log_rules_status_runs(tmp_path, run_cli):
    """One rule set for validate and status: a pre_cmd failure in a non-MRCR task's client
    log made status say stop; validate now judges it with the same rule (invalid)."""
    log = "ModuleNotFoundError: No module named 'tiktoken'\n"
    task = generic_task(tmp_path, "ns_gpqa.0", log=log)
    code, doc, checks = validate_json(run_cli, task)
    assert (code, doc["verdict"]) == (1, "invalid")
    assert (
        checks["pre-cmd"]["kind"] == "invalid" and "client-77.log:1" in checks["pre-cmd"]["message"]
    )
    assert checks["http-retries"]["status"] == "pass"
    code, status_doc = run_cli("status", task, "--format", "json")[:2]
    assert code == 1 and "pre-cmd" in status_doc
