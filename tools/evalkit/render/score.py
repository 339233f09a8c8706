"""The text view of `evalkit score`: one row per task, MRCR's needle strata below."""

from __future__ import annotations

from evalkit.render.endings import ending, quote
from evalkit.render.inert import inert_data
from evalkit.render.outcomes import counts_phrase
from evalkit.render.report import bar, format_number, table


def denominators(t: dict) -> str:
    """The headline's denominators: items, scored as answers, failed by cause."""
    o = t["outcomes"]
    repeats = f" ({o['unique_items']} x {o['repeats']} repeats)" if o["repeats"] > 1 else ""
    line = f"{o['items']} items{repeats}, " + counts_phrase(o, "scored as answers")
    if t.get("stderr_source"):
        reported = t.get("stderr_results_yml")
        shown = "none" if reported is None else format_number(reported, 4)
        line += f"; stderr from the items (results.yml says {shown})"
    dataset = t.get("dataset")
    if dataset:
        line += f"\n  dataset: {dataset['items']} items, digest {dataset['digest'][:16]}"
    for failure in o.get("run_failures", []):
        line += f"\n  run: {failure['outcome']} {failure['evidence']}"
    return line


def report_text(tasks: list[dict], run: str | None = None) -> str:
    tasks = inert_data(tasks)  # run data (metric keys, task names) on one line each
    rows = []
    for t in tasks:
        if t.get("benchmark") == "mrcr":
            rows.append(
                [
                    t["task"],
                    "mrcr",
                    "pass@1/accuracy",
                    format_number(t["pass_at_1"]),
                    "0-100",
                    "",
                    str(t["rollouts"] or "?"),
                ]
            )
        else:
            err = t.get("stderr")
            rows.append(
                [
                    t["task"],
                    t.get("benchmark") or "?",
                    t.get("metric") or "(none)",
                    format_number(t.get("value"), 4 if t.get("scale") == "0-1" else 2),
                    t.get("scale") or "?",
                    "" if err is None else format_number(err, 4),
                    "",
                ]
            )
    headers = ["task", "benchmark", "metric", "value", "scale", "stderr", "rollouts"]
    out = [table(headers, rows).rstrip()]
    for t in tasks:
        if t.get("benchmark") == "mrcr":
            out.append(f"\n{t['task']} ({t['agent']}): needle strata, pass@1 (0-100)")
            for needles, value in t["strata"].items():
                fraction = None if value is None else value / 100.0  # bar() takes 0-1
                out.append(f"  {needles} needles  {bar(fraction, 30)}  {format_number(value)}")
            out.append(f"  prefix_matched {format_number(t['prefix_matched'], 3)} (0-1)")
        elif t.get("outcomes"):
            out.append(f"\n{t['task']}: " + denominators(t))
        elif t.get("available"):
            out.append(
                f"\n{t['task']}: no documented headline key; scores present: "
                + ", ".join(t["available"])
            )
    target = quote(run) if run else "RUN"
    steps = [
        f"evalkit validate {target}   (whether the scores may be quoted, if not yet run)",
        f"evalkit compare BASELINE_RUN {target} --margin 1.0   (against its baseline)",
    ]
    checked = "checked: nothing; score reads each task's headline (validate checks the run)"
    return "\n".join(out).rstrip() + "\n" + ending([checked], steps)
