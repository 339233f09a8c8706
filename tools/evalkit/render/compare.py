"""The text view of a compare document: the suite table, or for one MRCR task on each
side (no gate or reference file) its item-level detail in full."""

from __future__ import annotations

import math
from typing import Any


def _num(value: Any, digits: int = 2, sign: bool = False) -> str:
    from evalkit.render.report import format_number

    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:+.{digits}f}" if sign else format_number(value, digits)


def _interval(pair: Any) -> str:
    lo, hi = pair
    if any(v is None or not math.isfinite(v) for v in (lo, hi)):
        return "n/a"
    return f"[{lo:+.2f}, {hi:+.2f}]"


def _p(value: Any) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


TRUST_MARKS = {
    "pass": "[ok]  ",
    "note": "[note]",
    "warn": "[warn]",
    "fail": "[FAIL]",
    "unverified": "[UNVERIFIED]",  # fail closed: the evidence was absent (comparison/trust.py)
    "accepted": "[ACCEPTED]",  # waived by the user with --accept, shown as loudly as a failure
}


def trust_lines(checks: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    marks = TRUST_MARKS
    return [f"{indent}{marks.get(c['status'], '?')} {c['id']}: {c['message']}" for c in checks]


def provenance_lines(provenance: dict[str, Any], indent: str = "  ") -> list[str]:
    from evalkit.render.report import table

    fields = ("invocation_id", "served_model", "checkpoint", "image", "gym_version")
    rows = [
        [name, str(provenance["base"].get(name) or "-"), str(provenance["cand"].get(name) or "-")]
        for name in fields
    ]
    return [indent + line for line in table(["", "base", "cand"], rows).rstrip().splitlines()]


def own_reasons(row: dict[str, Any]) -> list[str]:
    """The row's reasons less those a failing trust check already states (the trust list
    prints them with their check id): each reason once."""
    stated = {c["message"] for c in row.get("trust") or [] if c.get("status") == "fail"}
    return [r for r in row.get("reasons", []) if r not in stated]


def strata_lines(strata: dict[str, Any], indent: str = "  ") -> list[str]:
    """A suite row's MRCR needle strata (points 0-100), under its row."""
    from evalkit.render.report import table

    if not strata:
        return []
    rows = [
        [
            f"{h} needles",
            str(s.get("n")),
            _num(s.get("base")),
            _num(s.get("cand")),
            _num(s.get("delta"), sign=True),
            _interval(s.get("ci95") or [None, None]),
        ]
        for h, s in strata.items()
    ]
    body = table(["stratum", "n", "base", "cand", "delta", "95% CI"], rows).rstrip()
    return [f"{indent}needle strata (points 0-100):"] + [indent + x for x in body.splitlines()]


def counts_phrase(o: dict[str, Any]) -> str:
    from evalkit.render.outcomes import counts_phrase as phrase

    return phrase(o)


def outcome_lines(row: dict[str, Any], indent: str = "  ") -> list[str]:
    """Items by outcome on each side, and the paired test on their failed shares."""
    outcomes, failures = row.get("outcomes"), row.get("failures")
    if not outcomes:
        return []
    out = []
    for side, name in (("base", "base"), ("cand", "cand")):
        o = outcomes[side]
        out.append(f"{indent}items {name}: {o['items']}: {counts_phrase(o)}")
    if failures:
        out.append(
            f"{indent}failed (not the answer): base {100 * failures['base_failed_share']:.1f} %"
            f", cand {100 * failures['cand_failed_share']:.1f} %, p {_p(failures['p'])}"
        )
    return out


def render_suite_text(doc: dict[str, Any]) -> str:
    from evalkit.render.report import table

    paths = doc["paths"]
    out = [f"suite compare  base {paths['base']}", f"               cand {paths['cand']}"]
    rows = []
    for row in doc["tasks"]:
        rows.append(
            [
                row["task"],
                row["benchmark"],
                "-" if row.get("n") is None else str(row["n"]),
                _num(row.get("base")),
                _num(row.get("cand")),
                _num(row.get("delta"), sign=True),
                _interval(row.get("ci95") or [None, None]),
                "paired" if row.get("paired") else "UNPAIRED",
                _num(row.get("margin")),
                row["verdict"],
            ]
        )
    headers = ["task", "benchmark", "n", "base", "cand", "delta", "95% CI", "pairing", "margin"]
    out += ["", table([*headers, "verdict"], rows).rstrip("\n"), ""]
    for row in doc["tasks"]:
        out.append(f"{row['benchmark']} ({row['task']}): {row['verdict']}")
        if row.get("paired_why"):
            out.append(f"  pairing: {row['paired_why']}")
        validation = row.get("validation")
        if validation:
            out.append(f"  validate: base {validation['base']}, cand {validation['cand']}")
        out += outcome_lines(row)
        for reason in own_reasons(row):
            out.append(f"  - {reason}")
        out += strata_lines(row.get("strata") or {})
        ref = row.get("reference")
        if ref:
            where = "n/a" if ref["distance"] is None else f"{ref['distance']:+.2f}"
            out.append(
                f"  reference {ref['score']:g} ({ref['source'] or 'no source'}): baseline "
                f"{where} points, tolerance {ref['tolerance']:g} -> {ref['status']}"
            )
        out += trust_lines([c for c in row.get("trust", []) if c["status"] != "pass"])
    out.append("")
    out.append(f"gate: {doc['gate']}  (default margin {doc['default_margin']})")
    for reason in doc["reasons"]:
        out.append(f"  - {reason}")
    return "\n".join(out) + "\n"


def single_detail(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The one task's item-level document, when the suite is one Gym task on each side
    and no gate or reference file asks for the suite view."""
    tasks = doc["tasks"]
    if len(tasks) != 1 or doc.get("gate_file") or "reference" in tasks[0]:
        return None
    detail = tasks[0].get("detail")
    return detail if detail is not None and detail.get("benchmark") == "mrcr" else None


def render_text(doc: dict[str, Any]) -> str:
    """The view, then what compare already ran and what to do next."""
    from evalkit.render.compare_next import compare_ending
    from evalkit.render.inert import inert_data

    # The view prints run data one line each; the ending quotes the raw paths itself.
    return _body_text(inert_data(doc)) + compare_ending(doc)


def _body_text(doc: dict[str, Any]) -> str:
    from evalkit.render.report import bar, table

    if doc.get("kind") == "suite":
        detail = single_detail(doc)
        return render_suite_text(doc) if detail is None else _body_text(detail)
    out: list[str] = []
    if doc.get("benchmark") == "mrcr":
        agent = doc["agent"]
        out.append(
            f"MRCR compare  (agent: base {_names(agent['base'])}, cand {_names(agent['cand'])})"
        )
        out.append(f"  base  {doc['paths']['base']}")
        out.append(f"  cand  {doc['paths']['cand']}")
        out.append(
            f"items paired by content: {doc['n_paired']}  (unpaired: base "
            f"{doc['n_unpaired_base']}, cand {doc['n_unpaired_cand']}); scores in points 0-100"
        )
        headers = [
            "",
            "n",
            "base",
            "cand",
            "delta",
            "95% CI (t)",
            "bootstrap 95%",
            "p(perm)",
            "MDE",
        ]
        rows = []
        ordered = [("overall", doc["overall"])] + [
            (f"{h} needles", s) for h, s in doc["strata"].items()
        ]
        for label, s in ordered:
            rows.append(
                [
                    label,
                    str(s["n"]),
                    _num(s["base"]),
                    _num(s["cand"]),
                    _num(s["delta"], sign=True),
                    _interval(s["ci95"]),
                    _interval(s["bootstrap_ci95"]),
                    _p(s["p_permutation"]),
                    _num(s["mde"]),
                ]
            )
        out.append("")
        out.append(table(headers, rows).rstrip("\n"))
        out.append("")
        for label, s in ordered:
            for side in ("base", "cand"):
                value = s[side]
                fraction = None if value is None or not math.isfinite(value) else value / 100
                name = label if side == "base" else ""
                out.append(f"  {name:<11} {side}  {bar(fraction, 30)}  {_num(value)}")
        weights = doc["weights"]
        shown = ", ".join(
            f"{h}: {w:.3f}" for h, w in weights.items() if h != "scheme" and _finite(w)
        )
        out.append("")
        out.append(
            f"weights ({weights.get('scheme')}): {shown}; seed {doc['seed']}; "
            f"{doc.get('bootstrap_replicates')} bootstrap / permutation replicates"
        )
    if doc.get("tasks"):
        out.append("")
        out.append("other tasks (UNPAIRED: items are not available; normal-approx interval)")
        rows = [
            [
                row["task"],
                row["metric"],
                _num(row.get("base")),
                _num(row.get("cand")),
                _num(row.get("delta"), sign=True),
                _num(row.get("se")),
                _interval(row.get("ci95", [None, None])),
                row["verdict"],
            ]
            for row in doc["tasks"]
        ]
        out.append(
            table(
                ["task", "metric", "base", "cand", "delta", "SE", "95% CI", "verdict"], rows
            ).rstrip("\n")
        )
    if doc.get("trust"):
        out.append("")
        out.append("trust checks:")
        out += trust_lines(doc["trust"])
    if doc.get("provenance"):
        out.append("provenance:")
        out += provenance_lines(doc["provenance"])
    out.append("")
    out.append(f"verdict: {doc['verdict']}  (margin {doc['margin']:g} points)")
    for reason in own_reasons(doc):
        out.append(f"  - {reason}")
    for note in doc.get("notes", []):
        out.append(f"  note: {note}")
    return "\n".join(out) + "\n"


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _names(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(value) if value else "?"
    return value or "?"
