"""Per-item outcome counts (runs.outcomes.TaskOutcomes.as_dict) as text, one line per task
and a line per run-level failure, and as stacked bars (matplotlib SVG) for the release report.

status and both report formats call these, so the counts read the same everywhere.
"""

from __future__ import annotations

from typing import Any

from evalkit.render.forest import axis_label

# Stacking order and colours: the model's answers first, then failures by cause.
CAUSES = (
    ("scored", "#1b7f3b"),
    ("truncated", "#c0262d"),
    ("reasoning_only", "#7b3fa0"),
    ("unparsed", "#b26b00"),
    ("judge_error", "#1f5fa8"),
    ("endpoint_error", "#6b6b6b"),
    ("missing", "#bdbdbd"),
)
COLOURS = dict(CAUSES)


def _ordered(by_outcome: dict[str, int]) -> list[tuple[str, int]]:
    known = [(name, by_outcome.get(name, 0)) for name, _ in CAUSES]
    extra = [(k, v) for k, v in sorted(by_outcome.items()) if k not in COLOURS]
    return [(k, v) for k, v in known + extra if v]


def counts_phrase(doc: dict[str, Any], scored_words: str = "scored") -> str:
    """'8 scored, 4 unparsed, 8 failed (truncated 4, reasoning_only 4)': an unparsed
    answer is the model's own (not a failure), so it stands apart."""
    by = doc.get("by_outcome") or {}
    unparsed = doc.get("unparsed", by.get("unparsed", 0))
    failed = [(k, v) for k, v in _ordered(by) if k not in ("scored", "unparsed")]
    count = doc.get("failed", sum(v for _, v in failed))
    parts = [f"{doc.get('scored', 0)} {scored_words}"]
    if unparsed:
        parts.append(f"{unparsed} unparsed")
    causes = ", ".join(f"{k} {v}" for k, v in failed)
    parts.append(f"{count} failed" + (f" ({causes})" if causes else "") if count else "none failed")
    return ", ".join(parts)


def summary_line(doc: dict[str, Any] | None) -> str | None:
    """'20 items: 8 scored as answers, 12 failed (truncated 4, ...)', or None."""
    if not doc:
        return None
    if doc.get("error"):
        return f"per-item data unreadable: {doc['error']}"
    items = doc.get("items")
    if items is None:
        return "no per-item data written"
    line = f"{items} items: " + counts_phrase(doc, "scored as answers")
    harness = doc.get("harness")
    return f"{line}; {harness}, {doc['source']}" if doc.get("source") else line


def failure_lines(doc: dict[str, Any] | None) -> list[str]:
    """One line per run-level failure: 'endpoint_error x5: <evidence>'."""
    if not doc:
        return []
    return [f"{f['outcome']} x{f['count']}: {f['evidence']}" for f in doc.get("run_failures") or []]


def outcome_bars(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, outcome counts) per task and side of a suite document that carries them
    (a compare row's `outcomes`: {"base": TaskOutcomes.as_dict(), "cand": ...})."""
    bars = []
    for row in doc.get("tasks") or []:
        sides = row.get("outcomes") or {}
        for key, side in (("base", "baseline"), ("cand", "candidate")):
            counts = sides.get(key)
            if counts and counts.get("items"):
                bars.append((f"{row.get('benchmark')} ({row.get('task')}), {side}", counts))
    return bars


def outcomes_svg(bars: list[tuple[str, dict[str, Any]]]) -> str:
    """One stacked bar per task and side: the share of its items scored as answers and
    failed by cause (matplotlib SVG, text kept as text, as the forest plot)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    shown = list(reversed(bars))  # first task at the top
    rc = {
        "svg.fonttype": "none",
        "svg.hashsalt": "evalkit",
        "font.size": 10,
        "text.parse_math": False,
    }
    with matplotlib.rc_context(rc):
        fig, ax = plt.subplots(figsize=(7.5, 1.4 + 0.45 * len(shown)))
        try:
            used = set()
            for y, (_, counts) in enumerate(shown):
                parts = _ordered(counts.get("by_outcome") or {})
                total = sum(v for _, v in parts) or 1
                left = 0.0
                for name, count in parts:
                    share = 100.0 * count / total
                    ax.barh(
                        y,
                        share,
                        left=left,
                        color=COLOURS.get(name, "#999999"),
                        label=None if name in used else name,
                        height=0.6,
                    )
                    used.add(name)
                    left += share
            ax.set_yticks(range(len(shown)), [axis_label(label) for label, _ in shown])
            ax.set_xlim(0, 100)
            ax.set_xlabel("share of items (%)")
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.35 if len(shown) < 3 else -0.15),
                ncol=4,
                frameon=False,
                fontsize=8,
            )
            fig.tight_layout()
            out = io.StringIO()
            fig.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
        finally:
            plt.close(fig)
    svg = out.getvalue()
    return svg[svg.index("<svg") :]


__all__ = ["CAUSES", "failure_lines", "outcome_bars", "outcomes_svg", "summary_line"]
