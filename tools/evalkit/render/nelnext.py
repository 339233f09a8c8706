"""validate's document and text view for a nel-next run directory (runs/nelnext)."""

from __future__ import annotations

from typing import Any

from evalkit.benchmarks.tb21_health import FLAGGED, HEALTHY, is_tb21, screen
from evalkit.checks.model import INCOMPLETE, INVALID, VALID
from evalkit.render.inert import inert_data
from evalkit.runs.nelnext import NelNextRun, score_value

# The screen's verdict in validate's own verdict words (exit 0 only when healthy).
VERDICTS = {HEALTHY: VALID, FLAGGED: INVALID}


def nel_next_document(run: NelNextRun) -> dict[str, Any]:
    health = screen(run) if is_tb21(run) else None
    verdict = VERDICTS.get(health["verdict"], INCOMPLETE) if health else INCOMPLETE
    pass_at_1 = score_value(run.scores, "pass@1")
    return {
        "verdict": verdict,
        "checks": [],
        "tasks": [{"task": run.benchmark, "benchmark": run.benchmark, "verdict": verdict}],
        "nel_next": {"nemo_evaluator": run.sdk_version, "pass@1": pass_at_1},
        "health_screen": health,
    }


def nel_next_text(doc: dict[str, Any], run: str) -> str:
    doc = inert_data(doc)
    info = doc["nel_next"]
    lines = [f"{doc['tasks'][0]['task']} (nel-next, nemo-evaluator {info['nemo_evaluator']})"]
    health = doc["health_screen"]
    if health is None:
        lines.append("  no health screen for this benchmark (only Terminal-Bench 2.1 has one)")
    else:
        lines.append("  Terminal-Bench 2.1 health screen (read before pass@1):")
        for s in health["signals"]:
            why = f": {s['why']}" if s["why"] else ""
            lines.append(f"    [{s['status']}] {s['signal']} = {s['value']}  ({s['rule']}){why}")
        lines.append(f"  health: {health['verdict']}")
    shown = info["pass@1"]
    if health is not None and health["verdict"] != HEALTHY:
        lines.append(f"  pass@1: {shown} (not quotable: health {health['verdict']})")
    else:
        lines.append(f"  pass@1: {shown}")
    lines.append(f"verdict: {doc['verdict']}")
    return "\n".join(lines) + "\n"
