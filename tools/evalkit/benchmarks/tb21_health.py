"""The Terminal-Bench 2.1 run health screen, measured from a nel-next run directory.

Rules: NVIDIA/Model-Optimizer plugins/modelopt/skills/ at commit 5a042f6e (the TB2.1-health
branch head), recipes/tasks/aa_next/terminal_bench_2_1.md. Every signal is measured from the
run's files or is `unknown`; one flagged signal flags the run, else one unknown leaves it
unknown. The verdict is printed before any pass@1."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evalkit.runs.nelnext import NelNextRun, score_value

HEALTHY, FLAGGED, UNKNOWN = "healthy", "flagged", "unknown"

AGENT_COMPLETION_MIN = 0.90
EVAL_COMPLETION_MIN = 0.95
EARLY_REWARD_MIN = 0.50
SHORTEST_ROLLOUT_MIN_S = 30.0
DURATION_MIN_H = 3.0
CALIBRATED_TRIALS = 89 * 8  # the duration floor holds only for this shape
WINDOW_FRACTION = 0.05
FAST_WINDOW_S = 4 * 60
FAST_WINDOW_REWARD_MIN = 0.15
AGENT_COMPLETION_KEY = "mean/terminus2_completed"


@dataclass(frozen=True)
class Signal:
    name: str
    status: str
    value: Any
    rule: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "signal": self.name,
            "status": self.status,
            "value": self.value,
            "rule": self.rule,
            "why": self.why,
        }


def is_tb21(run: NelNextRun) -> bool:
    name = (run.benchmark or "").lower().replace("-", "_").replace(".", "_")
    return "terminal_bench" in name or name.startswith("tb2")


def screen(run: NelNextRun) -> dict[str, Any]:
    signals = [
        _agent_completion(run),
        _eval_completion(run),
        _early(run),
        _duration(run),
        _fast_windows(run),
    ]
    statuses = {s.status for s in signals}
    verdict = FLAGGED if FLAGGED in statuses else UNKNOWN if UNKNOWN in statuses else HEALTHY
    return {
        "screen": "terminal-bench-2.1-health",
        "verdict": verdict,
        "signals": [s.to_json() for s in signals],
        "trials_expected": run.expected,
        "nemo_evaluator": run.sdk_version,
    }


def _window(run: NelNextRun) -> int | None:
    total = run.expected or (len(run.trials) if run.trials else None)
    return max(1, math.ceil(WINDOW_FRACTION * total)) if total else None


def _agent_completion(run: NelNextRun) -> Signal:
    rule = f"{AGENT_COMPLETION_KEY} >= {AGENT_COMPLETION_MIN}"
    value = score_value(run.scores, AGENT_COMPLETION_KEY)
    if value is None:
        return Signal(
            "agent_completion",
            UNKNOWN,
            None,
            rule,
            f"no {AGENT_COMPLETION_KEY} in the bundle scores",
        )
    ok = value >= AGENT_COMPLETION_MIN
    return Signal(
        "agent_completion",
        HEALTHY if ok else FLAGGED,
        value,
        rule,
        "" if ok else f"{value:.4f} of agent runs completed",
    )


def _eval_completion(run: NelNextRun) -> Signal:
    rule = f"scored trials without error / expected >= {EVAL_COMPLETION_MIN}"
    if run.trials is None or not run.expected:
        missing = "trajectories.jsonl" if run.trials is None else "samples x repeats in the bundle"
        return Signal("evaluation_completion", UNKNOWN, None, rule, f"no {missing}")
    done = sum(1 for t in run.trials if not t.failed and t.reward is not None)
    value = done / run.expected
    ok = value >= EVAL_COMPLETION_MIN
    return Signal(
        "evaluation_completion",
        HEALTHY if ok else FLAGGED,
        round(value, 4),
        rule,
        "" if ok else f"{done} of {run.expected} trials evaluated",
    )


def _closed_in_order(run: NelNextRun) -> list | None:
    if not run.trials or any(t.closed is None or t.reward is None for t in run.trials):
        return None
    return sorted(run.trials, key=lambda t: t.closed)


def _early(run: NelNextRun) -> Signal:
    rule = (
        f"mean reward of the first {WINDOW_FRACTION:.0%} of trials >= {EARLY_REWARD_MIN:.0%} "
        f"and shortest rollout >= {SHORTEST_ROLLOUT_MIN_S:.0f} s"
    )
    ordered, size = _closed_in_order(run), _window(run)
    if ordered is None or size is None or len(ordered) < size:
        return Signal(
            "early_reward_and_shortest_rollout",
            UNKNOWN,
            None,
            rule,
            "trajectories.jsonl missing, short, or without timestamps and timing",
        )
    early = sum(t.reward for t in ordered[:size]) / size
    shortest = min(t.total_s for t in ordered)
    problems = []
    if early < EARLY_REWARD_MIN:
        problems.append(f"cumulative reward {early:.1%} after {size} trials")
    if shortest < SHORTEST_ROLLOUT_MIN_S:
        problems.append(f"shortest rollout {shortest:.1f} s")
    value = {"early_reward": round(early, 4), "shortest_rollout_s": round(shortest, 1)}
    return Signal(
        "early_reward_and_shortest_rollout",
        FLAGGED if problems else HEALTHY,
        value,
        rule,
        "; ".join(problems),
    )


def _duration(run: NelNextRun) -> Signal:
    rule = f"run duration >= {DURATION_MIN_H} h (calibrated for {CALIBRATED_TRIALS} trials only)"
    if run.elapsed_s is None:
        return Signal("duration", UNKNOWN, None, rule, "no elapsed_seconds in runtime_stats.json")
    hours = round(run.elapsed_s / 3600.0, 3)
    if run.expected != CALIBRATED_TRIALS:
        return Signal(
            "duration",
            UNKNOWN,
            hours,
            rule,
            f"run shape {run.expected} trials is not the calibrated {CALIBRATED_TRIALS}",
        )
    ok = hours >= DURATION_MIN_H
    return Signal("duration", HEALTHY if ok else FLAGGED, hours, rule, "" if ok else f"{hours} h")


def _fast_windows(run: NelNextRun) -> Signal:
    rule = (
        f"no {WINDOW_FRACTION:.0%} window after the first closing within "
        f"{FAST_WINDOW_S // 60} min with mean reward < {FAST_WINDOW_REWARD_MIN:.0%}"
    )
    ordered, size = _closed_in_order(run), _window(run)
    if ordered is None or size is None:
        return Signal(
            "fast_low_reward_windows",
            UNKNOWN,
            None,
            rule,
            "trajectories.jsonl missing or without timestamps and timing",
        )
    bad = []
    for start in range(size, len(ordered) - size + 1):
        chunk = ordered[start : start + size]
        span = chunk[-1].closed - chunk[0].closed
        mean = sum(t.reward for t in chunk) / size
        if span <= FAST_WINDOW_S and mean < FAST_WINDOW_REWARD_MIN:
            bad.append(start)
    if bad:
        return Signal(
            "fast_low_reward_windows",
            FLAGGED,
            len(bad),
            rule,
            f"{len(bad)} windows, first starting at trial {bad[0] + 1} in closing order",
        )
    return Signal("fast_low_reward_windows", HEALTHY, 0, rule, "")
