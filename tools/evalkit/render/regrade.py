"""The text view of `evalkit regrade`: the checks, the strata, every mismatch."""

from __future__ import annotations

from pathlib import Path

from evalkit.render.endings import ending, quote
from evalkit.render.inert import inert_data
from evalkit.render.report import bar, format_number, table


def report_text(doc: dict, code: int) -> str:
    raw, doc = doc, inert_data(doc)  # run data on one line each; the ending quotes the path
    lines = [f"rollouts file: {doc['rollouts_file']}"]
    rows = [
        ["pass@1 (0-100)", format_number(doc["pass_at_1"])],
        ["stored pass@1 (0-100)", format_number(doc["stored_pass_at_1"])],
        ["prefix_matched (0-1)", format_number(doc["prefix_matched"], 3)],
        ["rollouts (unique)", str(doc["rollouts"])],
        ["duplicates", f"{doc['duplicates']} ({doc['conflicting_duplicates']} conflicting)"],
        ["truncated last line", "yes" if doc["truncated_lines"] else "no"],
        ["reward mismatches", str(doc["reward_mismatches"])],
        [
            "aggregate file agrees",
            {True: "yes", False: "NO", None: "no aggregate file"}[doc["aggregate_agrees"]],
        ],
    ]
    lines.append(table(["check", "value"], rows).rstrip())
    lines.append("needle strata, pass@1 (0-100):")
    for needles, value in doc["strata"].items():
        fraction = None if value is None else value / 100.0
        lines.append(f"  {needles} needles  {bar(fraction, 30)}  {format_number(value)}")
    flags = ", ".join(f"{k} {v}" for k, v in doc["flags"].items())
    lines.append(f"flags: {flags}")
    leak = doc.get("reasoning_leak") or {}
    if leak.get("level") in ("note", "problem"):
        lines.append(f"  reasoning_leak, {leak['level']}: {leak['message']}")
    for ex in doc["mismatch_examples"]:
        # Name the field that differs: a reward can agree while prefix_matched does not.
        differs = []
        for field in ("reward", "prefix_matched"):
            stored, regraded = ex[f"stored_{field}"], ex[f"regraded_{field}"]
            if stored != regraded:
                differs.append(f"{field} stored {stored!r}, regraded {regraded!r}")
        lines.append(
            f"  line {ex['line']}: task {ex['task_index']} rollout "
            f"{ex['rollout_index']}: " + "; ".join(differs)
        )
    for d in doc["aggregate_diffs"]:
        lines.append(f"  aggregate {d['key']}: file {d['file']!r}, recomputed {d['recomputed']!r}")
    lines.append(
        "verdict: "
        + ("every stored reward and aggregate reproduced" if code == 0 else "FAILED (see above)")
    )
    return "\n".join(lines) + "\n" + _ending(raw, code)


def _ending(doc: dict, code: int) -> str:
    checked = (
        f"checked: {doc['rollouts']} rollouts graded again with NeMo Gym's rules; stored "
        "rewards, duplicates, the last line and the aggregate file against them"
    )
    folder = Path(doc["rollouts_file"]).parent
    task = folder.parent if folder.name == "artifacts" else folder  # validate reads logs/ too
    if code == 0:
        steps = [f"evalkit validate {quote(task)}   (the rest of the run checks, if not yet run)"]
    else:
        steps = [
            "the stored grades do not reproduce: do not quote this run's score; rerun it at "
            "the pinned Gym commit (see references/run-validation.md#aggregate-agreement)"
        ]
    return ending([checked], steps)
