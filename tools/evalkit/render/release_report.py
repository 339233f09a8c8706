"""The release report: a suite compare document (comparison.suite) as one self-contained HTML
page, or as Markdown to paste into a release document.

The HTML has no script, no external stylesheet, font or image: the forest plot is
matplotlib's SVG, inlined, with text kept as text so the page can be searched and tested.
The Markdown carries the same plot drawn in characters, in a code block, so it survives
a paste anywhere without an image file. Pure rendering: it takes the document and
returns a string.
"""

from __future__ import annotations

from typing import Any

from evalkit.render.compare import own_reasons as _own_reasons
from evalkit.render.forest import forest_svg, forest_text
from evalkit.render.forest import interval as _interval
from evalkit.render.forest import num as _num
from evalkit.render.forest import row_label as _label
from evalkit.render.inert import html_text, inert_data, md_code, md_fence, md_text
from evalkit.render.outcomes import failure_lines, outcome_bars, outcomes_svg, summary_line

VERDICT_COLOURS = {
    "no_regression": "#1b7f3b",
    "inconclusive": "#b26b00",
    "unverified": "#7a3db8",
    "regression": "#c0262d",
    "not_comparable": "#6b6b6b",
}
GATE_COLOURS = {
    "pass": "#1b7f3b",
    "inconclusive": "#b26b00",
    "unverified": "#7a3db8",
    "fail": "#c0262d",
    "not_comparable": "#6b6b6b",
}
PROVENANCE_FIELDS = ("invocation_id", "served_model", "checkpoint", "image", "gym_version")


# ---- HTML -------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:72rem;color:#1d1d1d;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #d0d0d0;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;color:#fff;font-weight:600}
.reasons{margin:.2rem 0 .8rem 1.2rem;font-size:.9rem}
.mark-fail{color:#c0262d;font-weight:600}.mark-note{color:#b26b00}.mark-warn{color:#b26b00}.mark-pass{color:#1b7f3b}.mark-unverified,.mark-accepted{color:#7a3db8;font-weight:600}
figure{margin:0}code{font-size:.85rem}
"""


def _e(value: Any) -> str:
    return html_text(value)


def _badge(text: str, colours: dict[str, str]) -> str:
    colour = colours.get(text, "#333333")
    return f'<span class="badge" style="background:{colour}">{_e(text)}</span>'


def _table(headers: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _suite_rows(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for row in doc["tasks"]:
        rows.append(
            [
                _e(row["task"]),
                _e(row["benchmark"]),
                _e("-" if row.get("n") is None else row["n"]),
                _num(row.get("base")),
                _num(row.get("cand")),
                _num(row.get("delta"), sign=True),
                _e(_interval(row.get("ci95"))),
                _num(row.get("margin")),
                "paired" if row.get("paired") else "unpaired",
                _badge(row["verdict"], VERDICT_COLOURS),
            ]
        )
    return rows


SUITE_HEADERS = [
    "task",
    "benchmark",
    "n",
    "base",
    "cand",
    "delta",
    "95% CI",
    "margin",
    "pairing",
    "verdict",
]


def _strata_html(row: dict[str, Any]) -> str:
    strata = row.get("strata") or {}
    if not strata:
        return ""
    body = [
        [
            _e(f"{h} needles"),
            _e(s.get("n")),
            _num(s.get("base")),
            _num(s.get("cand")),
            _num(s.get("delta"), sign=True),
            _e(_interval(s.get("ci95"))),
        ]
        for h, s in strata.items()
    ]
    return f"<h3>{_e(_label(row))}: needle strata (points 0-100)</h3>" + _table(
        ["stratum", "n", "base", "cand", "delta", "95% CI"], body, {1, 2, 3, 4}
    )


def _provenance_html(row: dict[str, Any]) -> str:
    prov = row.get("provenance")
    if not prov:
        return ""
    body = [
        [
            _e(name),
            f"<code>{_e(prov['base'].get(name) or '-')}</code>",
            f"<code>{_e(prov['cand'].get(name) or '-')}</code>",
        ]
        for name in PROVENANCE_FIELDS
    ]
    return _table(["", "baseline", "candidate"], body)


def _trust_html(row: dict[str, Any]) -> str:
    checks = row.get("trust") or []
    if not checks:
        return ""
    items = "".join(
        f'<li><span class="mark-{_e(c["status"])}">{_e(c["status"])}</span> '
        f"<code>{_e(c['id'])}</code>: {_e(c['message'])}</li>"
        for c in checks
    )
    return f'<ul class="reasons">{items}</ul>'


def _outcomes_html(doc: dict[str, Any]) -> list[str]:
    """Items by outcome per task and side: the stacked bars, then the counts in words."""
    bars = outcome_bars(doc)
    if not bars:
        return []
    lines = "".join(
        f"<li>{_e(label)}: {_e(summary_line(counts))}"
        + "".join(f"<br><small>{_e(f)}</small>" for f in failure_lines(counts))
        + "</li>"
        for label, counts in bars
    )
    return [
        "<h2>Items by outcome</h2>",
        f'<figure id="outcomes">{outcomes_svg(bars)}<figcaption>Share of each task\'s items '
        "scored as answers (green), unparsed (the model's own answer, scored wrong) and "
        "failed for a reason that is not the model's answer, by cause.</figcaption></figure>",
        f'<ul class="reasons">{lines}</ul>',
    ]


def render_html(doc: dict[str, Any], title: str = "Release comparison") -> str:
    doc = inert_data(doc)  # every value on one line, for the plots' labels too
    gate = doc["gate"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}: {_e(gate)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p id="gate">Gate: {_badge(gate, GATE_COLOURS)} '
        f"(default margin {_e(doc['default_margin'])}"
        + (f", gate file <code>{_e(doc['gate_file'])}</code>" if doc.get("gate_file") else "")
        + ")</p>",
        f"<p>Baseline <code>{_e(doc['paths']['base'])}</code><br>"
        f"Candidate <code>{_e(doc['paths']['cand'])}</code></p>",
        '<ul class="reasons">' + "".join(f"<li>{_e(r)}</li>" for r in doc["reasons"]) + "</ul>",
        "<h2>Suite</h2>",
        _table(SUITE_HEADERS, _suite_rows(doc), {2, 3, 4, 5, 7}),
        "<h2>Deltas</h2>",
        f'<figure id="forest">{forest_svg(doc["tasks"])}'
        "<figcaption>Delta per task with its 95 % interval (paired tasks: paired t; "
        "unpaired: normal, sqrt(SE_B^2 + SE_C^2)); dashed: no change; red tick: the "
        "task's -margin.</figcaption></figure>",
    ]
    parts += _outcomes_html(doc)
    strata = "".join(_strata_html(row) for row in doc["tasks"])
    if strata:
        parts += ["<h2>MRCR needle strata</h2>", strata]
    parts.append("<h2>Validation, trust checks and provenance</h2>")
    for row in doc["tasks"]:
        validation = row.get("validation") or {}
        parts.append(f"<h3>{_e(_label(row))}: {_badge(row['verdict'], VERDICT_COLOURS)}</h3>")
        if validation:
            parts.append(
                f"<p>evalkit validate: baseline <b>{_e(validation.get('base'))}</b>, "
                f"candidate <b>{_e(validation.get('cand'))}</b>. "
                f"Pairing: {_e(row.get('paired_why') or '-')}</p>"
            )
        parts.append(
            '<ul class="reasons">'
            + "".join(f"<li>{_e(r)}</li>" for r in _own_reasons(row))
            + "</ul>"
        )
        ref = row.get("reference")
        if ref:
            parts.append(
                f"<p>Reference {_num(ref['score'])} ({_e(ref['source'] or 'no source')}): "
                f"baseline {_num(ref['distance'], sign=True)} points, tolerance "
                f"{_num(ref['tolerance'])}: <b>{_e(ref['status'])}</b></p>"
            )
        verbose = row.get("verbosity")
        if verbose:
            flag = "<b>flagged</b>: " if verbose["status"] in ("longer", "shorter") else ""
            parts.append(f"<p>Verbosity: {flag}{_e(verbose['message'])}</p>")
        parts.append(_trust_html(row))
        parts.append(_provenance_html(row))
    parts.append(
        f"<p><small>evalkit report; seed {_e(doc.get('seed'))}, "
        f"{_e(doc.get('bootstrap_replicates'))} bootstrap replicates.</small></p>"
    )
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p) + "\n"


# ---- Markdown ---------------------------------------------------------------------------------


# Run data in Markdown: the shared helpers (render/inert.py), under the names used here.
_md = md_text
_code = md_code


def render_markdown(doc: dict[str, Any], title: str = "Release comparison") -> str:
    doc = inert_data(doc)
    out = [
        f"## {_md(title)}: gate **{_md(doc['gate'])}**",
        "",
        f"Baseline {_code(doc['paths']['base'])}, candidate {_code(doc['paths']['cand'])}; "
        f"default margin {_md(doc['default_margin'])}.",
        "",
    ]
    out += [f"- {_md(r)}" for r in doc["reasons"]]
    out += ["", "| " + " | ".join(SUITE_HEADERS) + " |", "|" + "---|" * len(SUITE_HEADERS)]
    for row in doc["tasks"]:
        cells = [
            row["task"],
            row["benchmark"],
            "-" if row.get("n") is None else row["n"],
            _num(row.get("base")),
            _num(row.get("cand")),
            _num(row.get("delta"), sign=True),
            _interval(row.get("ci95")),
            _num(row.get("margin")),
            "paired" if row.get("paired") else "unpaired",
        ]
        verdict = f"**{_md(row['verdict'])}**"
        out.append("| " + " | ".join([*(_md(c) for c in cells), verdict]) + " |")
    if doc["tasks"]:
        out += ["", md_fence(forest_text(doc["tasks"]))]
    bars = outcome_bars(doc)
    if bars:
        out += ["", "### Items by outcome", ""]
        for label, counts in bars:
            out.append(f"- {_md(label)}: {_md(summary_line(counts))}")
            out += [f"  - {_md(line)}" for line in failure_lines(counts)]
    for row in doc["tasks"]:
        out += ["", f"### {_md(_label(row))}: {_md(row['verdict'])}"]
        validation = row.get("validation") or {}
        if validation:
            out.append(
                f"- validate: baseline {_md(validation.get('base'))}, "
                f"candidate {_md(validation.get('cand'))}"
            )
        if row.get("paired_why"):
            out.append(f"- pairing: {_md(row['paired_why'])}")
        out += [f"- {_md(r)}" for r in _own_reasons(row)]
        ref = row.get("reference")
        if ref:
            out.append(
                f"- reference {_num(ref['score'])} ({_md(ref['source'] or 'no source')}): "
                f"baseline {_num(ref['distance'], sign=True)} points -> {_md(ref['status'])}"
            )
        verbose = row.get("verbosity")
        if verbose:
            flag = "**flagged**: " if verbose["status"] in ("longer", "shorter") else ""
            out.append(f"- verbosity: {flag}{_md(verbose['message'])}")
        for c in row.get("trust") or []:
            if c["status"] != "pass":
                out.append(f"- trust {_md(c['status'])}: {_code(c['id'])} {_md(c['message'])}")
        strata = row.get("strata") or {}
        if strata:
            out += ["", "| needles | n | base | cand | delta | 95% CI |", "|---" * 6 + "|"]
            for h, s in strata.items():
                out.append(
                    f"| {_md(h)} | {_md(s.get('n'))} | {_num(s.get('base'))} | "
                    f"{_num(s.get('cand'))} | {_num(s.get('delta'), sign=True)} | "
                    f"{_interval(s.get('ci95'))} |"
                )
        prov = row.get("provenance")
        if prov:
            out += ["", "| provenance | baseline | candidate |", "|---|---|---|"]
            for name in PROVENANCE_FIELDS:
                b, c = prov["base"].get(name) or "-", prov["cand"].get(name) or "-"
                out.append(f"| {name} | {_code(b)} | {_code(c)} |")
    return "\n".join(out) + "\n"
