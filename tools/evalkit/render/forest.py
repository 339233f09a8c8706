"""The forest plot of a suite compare document: per-task delta (points) with its 95 %
interval, zero and each task's -margin, as matplotlib SVG for the HTML page or in
characters for Markdown. Also the number formats the release report shares with it."""

from __future__ import annotations

import io
import math
from typing import Any

# The plot's own palette (matplotlib's tab colours), distinct from the badges' darker
# shades, so a screenshot can tell the drawn plot from the rest of the page.
PLOT_COLOURS = {
    "no_regression": "#2ca02c",
    "inconclusive": "#ff7f0e",
    "unverified": "#9467bd",
    "regression": "#d62728",
    "not_comparable": "#7f7f7f",
}
MARGIN_COLOUR = "#d62728"


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def num(value: Any, sign: bool = False) -> str:
    if not finite(value):
        return "n/a"
    return f"{value:+.2f}" if sign else f"{value:.2f}"


def interval(ci: Any) -> str:
    if not ci or not all(finite(v) for v in ci):
        return "n/a"
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def row_label(row: dict[str, Any]) -> str:
    return f"{row['benchmark']} ({row['task']})"


AXIS_LABEL_CHARS = 48  # a plot's tick labels; the table beside it carries the whole name


def axis_label(text: str) -> str:
    """TEXT cut to fit a plot's axis: a long name (a run's own, possibly hostile) would
    leave matplotlib no room for the axes, and it then warns on stderr."""
    return text if len(text) <= AXIS_LABEL_CHARS else text[: AXIS_LABEL_CHARS - 1] + "\u2026"


# ---- the forest plot -----------------------------------------------------------------------


def _reach(rows: list[dict[str, Any]]) -> float:
    """The largest distance from zero of any delta, interval end or -margin (1 if none)."""
    values = [0.0]
    for row in rows:
        values.append(row.get("delta"))
        values.extend(row.get("ci95") or [])
        margin = row.get("margin")
        values.append(-margin if finite(margin) else None)
    return max(abs(v) for v in values if finite(v)) or 1.0


def x_limits(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """A symmetric axis around zero holding every delta, interval end and -margin with
    room to spare, so no mark sits on the frame (a zero-width interval at 0 included)."""
    reach = _reach(rows)
    return -1.15 * reach, 1.15 * reach


def forest_svg(rows: list[dict[str, Any]]) -> str:
    """Per-task delta (points) with its 95 % interval, zero, and each task's -margin."""
    import matplotlib

    matplotlib.use("Agg")  # no display: render to a string
    from matplotlib import pyplot as plt

    shown = list(reversed(rows))  # first task at the top
    height = 1.2 + 0.55 * max(1, len(shown))
    with matplotlib.rc_context(
        # text.parse_math off: a task named `$\undefined{x}$` is a label, not math text.
        {
            "svg.fonttype": "none",
            "svg.hashsalt": "evalkit",
            "font.size": 10,
            "text.parse_math": False,
        }
    ):
        fig, ax = plt.subplots(figsize=(7.5, height))
        try:
            for y, row in enumerate(shown):
                colour = PLOT_COLOURS.get(row["verdict"], "#333333")
                delta, ci = row.get("delta"), row.get("ci95") or [None, None]
                if finite(delta) and all(finite(v) for v in ci):
                    ax.errorbar(
                        delta,
                        y,
                        xerr=[[delta - ci[0]], [ci[1] - delta]],
                        fmt="o",
                        color=colour,
                        ecolor=colour,
                        elinewidth=2.5,
                        capsize=4,
                        markersize=7,
                    )
                elif finite(delta):
                    ax.plot(delta, y, "o", color=colour, markerfacecolor="white", markersize=7)
                margin = row.get("margin")
                if finite(margin):
                    ax.plot(-margin, y, marker="|", color=MARGIN_COLOUR, markersize=18, mew=2)
            ax.axvline(0.0, color="#444444", linewidth=1, linestyle="--")
            ax.set_xlim(*x_limits(rows))
            ax.set_yticks(range(len(shown)), [axis_label(row_label(r)) for r in shown])
            ax.set_ylim(-0.7, len(shown) - 0.3)
            ax.set_xlabel("candidate - baseline (points); red tick: -margin")
            ax.grid(axis="x", color="#dddddd", linewidth=0.6)
            ax.set_axisbelow(True)
            fig.tight_layout()
            out = io.StringIO()
            fig.savefig(out, format="svg", metadata={"Date": None})
        finally:
            plt.close(fig)
    svg = out.getvalue()
    return svg[svg.index("<svg") :]  # drop the XML prologue and doctype: inline SVG


_FENCE_SAFE = str.maketrans({"\n": " ", "\r": " ", "`": "'"})
PLOT_WIDTH = 41  # characters of the text plot's axis; odd, so zero has a middle column


def forest_text(rows: list[dict[str, Any]], width: int = PLOT_WIDTH) -> str:
    """The forest plot in characters: `o` the delta, `=` its 95 % interval, `|` zero, `!`
    the -margin; one row per task on a shared symmetric scale (points)."""
    scale = _reach(rows)
    half = width // 2

    def column(x: float) -> int:
        return min(width - 1, max(0, half + round(x / scale * half)))

    # Inside a code block: no newline or backtick may end the block early.
    labels = [row_label(r).translate(_FENCE_SAFE) for r in rows]
    pad = max(len(label) for label in labels) if labels else 0
    # The axis ends and zero above their columns, where the labels fit.
    left, right = f"{-scale:+.2f}", f"{scale:+.2f}"
    ruler = [" "] * width
    if len(left) + len(right) + 3 <= width:
        ruler[: len(left)] = left
        ruler[width - len(right) :] = right
        if ruler[half - 1 : half + 2] == [" ", " ", " "]:
            ruler[half] = "0"
    lines = [f"{'':{pad}}   " + "".join(ruler).rstrip()]
    for label, row in zip(labels, rows, strict=True):
        axis = [" "] * width
        delta, ci = row.get("delta"), row.get("ci95") or [None, None]
        if all(finite(v) for v in ci):
            for i in range(column(ci[0]), column(ci[1]) + 1):
                axis[i] = "="
        axis[half] = "|"  # over the interval: whether it crosses zero stays visible
        margin = row.get("margin")
        if finite(margin):
            axis[column(-margin)] = "!"
        if finite(delta):
            axis[column(delta)] = "o"
        figure = f"{num(delta, sign=True)} {interval(ci)}" if finite(delta) else "n/a"
        lines.append(f"{label:{pad}}  [{''.join(axis)}]  {figure}  {row['verdict']}")
    lines.append(f"{'':{pad}}  o delta, = 95% CI, | zero, ! -margin; axis {left} to {right} points")
    return "\n".join(lines)
