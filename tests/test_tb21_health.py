"""The TB2.1 health screen in `evalkit validate` on nel-next run dirs: a healthy run written
by nemo-evaluator 0.3.0's writers (fixtures/nel_next/PROVENANCE.md), and copies of it changed
in one place to flag each signal or leave it unknown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HEALTHY = Path(__file__).parent / "fixtures" / "nel_next" / "tb21_healthy"
BUNDLE = "eval-20260912T000000Z-terminal_bench_2_1.json"


def _copy(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(HEALTHY, run)
    return run


def _edit_trials(run: Path, change) -> None:
    path = run / "trajectories.jsonl"
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    recs.sort(key=lambda r: r["timestamp"] + r["timing"]["total_ms"] / 1000)  # closing order
    for i, rec in enumerate(recs):
        change(i, rec)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _screen(run_cli, run: Path) -> tuple[int, dict]:
    code, out, err = run_cli("validate", run, "--format", "json")
    assert err == ""
    doc = json.loads(out)
    return code, doc


def _status(doc: dict) -> dict[str, str]:
    return {s["signal"]: s["status"] for s in doc["health_screen"]["signals"]}


def test_healthy_run_passes_every_signal(run_cli):
    code, doc = _screen(run_cli, HEALTHY)
    assert code == 0 and doc["verdict"] == "valid"
    assert doc["health_screen"]["verdict"] == "healthy"
    assert set(_status(doc).values()) == {"healthy"}
    assert doc["nel_next"] == {"nemo_evaluator": "0.3.0", "pass@1": 0.5014}


def test_text_prints_the_screen_before_pass_at_1(run_cli):
    code, out, _ = run_cli("validate", HEALTHY)
    assert code == 0
    for name in (
        "agent_completion",
        "evaluation_completion",
        "early_reward_and_shortest_rollout",
        "duration",
        "fast_low_reward_windows",
    ):
        assert f"[healthy] {name}" in out
    assert out.index("health: healthy") < out.index("pass@1: 0.5014")


def _agent(run):
    _edit_json(
        run / BUNDLE,
        lambda d: d["benchmark"]["scores"].update({"mean/terminus2_completed": {"value": 0.88}}),
    )


def _evaluation(run):  # 36 failed of 712: 0.949 < 0.95
    _edit_trials(
        run,
        lambda i, r: (
            r.update(failure_category="sandbox_error") if i % 19 == 5 and i < 690 else None
        ),
    )


def _early(run):
    _edit_trials(run, lambda i, r: r.update(reward=0.0) if i < 36 and i % 3 else None)


def _shortest(run):
    def change(i, r):
        if i == 400:  # a 20 s rollout closing where it did
            r["timestamp"] += r["timing"]["total_ms"] / 1000 - 20
            r["timing"]["total_ms"] = 20000.0

    _edit_trials(run, change)


def _duration(run):
    _edit_json(run / "runtime_stats.json", lambda d: d.update(elapsed_seconds=10000.0))


def _fast_window(run):
    def change(i, r):
        if 300 <= i < 336:  # 36 zero-reward trials closing 5 s apart (175 s in all)
            closed = 1_790_000_000.0 + 600 + 300 * 16 + (i - 300) * 5
            r["timestamp"] = closed - r["timing"]["total_ms"] / 1000
            r["reward"] = 0.0

    _edit_trials(run, change)


@pytest.mark.parametrize(
    ("change", "signal"),
    [
        (_agent, "agent_completion"),
        (_evaluation, "evaluation_completion"),
        (_early, "early_reward_and_shortest_rollout"),
        (_shortest, "early_reward_and_shortest_rollout"),
        (_duration, "duration"),
        (_fast_window, "fast_low_reward_windows"),
    ],
)
def test_each_signal_flags_the_run(run_cli, tmp_path, change, signal):
    run = _copy(tmp_path)
    change(run)
    code, doc = _screen(run_cli, run)
    assert code == 1 and doc["verdict"] == "invalid"
    assert doc["health_screen"]["verdict"] == "flagged"
    flagged = {k for k, v in _status(doc).items() if v == "flagged"}
    assert flagged == {signal}


def test_missing_trajectories_leave_their_signals_unknown(run_cli, tmp_path):
    run = _copy(tmp_path)
    (run / "trajectories.jsonl").unlink()
    code, doc = _screen(run_cli, run)
    assert code == 1 and doc["health_screen"]["verdict"] == "unknown"
    assert _status(doc) == {
        "agent_completion": "healthy",
        "evaluation_completion": "unknown",
        "early_reward_and_shortest_rollout": "unknown",
        "duration": "healthy",
        "fast_low_reward_windows": "unknown",
    }
    _, out, _ = run_cli("validate", run)
    assert "pass@1: 0.5014 (not quotable: health unknown)" in out


def test_missing_runtime_stats_and_metric_are_unknown(run_cli, tmp_path):
    run = _copy(tmp_path)
    (run / "runtime_stats.json").unlink()
    _edit_json(run / BUNDLE, lambda d: d["benchmark"]["scores"].pop("mean/terminus2_completed"))
    _, doc = _screen(run_cli, run)
    status = _status(doc)
    assert status["duration"] == "unknown" and status["agent_completion"] == "unknown"


def test_other_shape_leaves_duration_unknown(run_cli, tmp_path):
    run = _copy(tmp_path)
    _edit_json(run / BUNDLE, lambda d: d["benchmark"].update(repeats=4))
    _, doc = _screen(run_cli, run)
    assert _status(doc)["duration"] == "unknown"


def test_broken_line_is_a_one_line_error(run_cli, tmp_path):
    run = _copy(tmp_path)
    with (run / "trajectories.jsonl").open("a") as f:
        f.write("{not json\n")
    before = (run / "trajectories.jsonl").read_bytes()
    code, out, err = run_cli("validate", run)
    assert code == 2 and out == ""
    assert "trajectories.jsonl" in err and ":713" in err and len(err.strip().splitlines()) == 1
    assert (run / "trajectories.jsonl").read_bytes() == before
