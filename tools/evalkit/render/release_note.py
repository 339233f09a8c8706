"""`evalkit compare --format markdown`: a release-note section a person can paste as it
is. Short by design (the long document is `evalkit report --format markdown`): both
scores with the file and key each comes from, both sides' validation, the trust checks,
the verdict with its interval and MDE, and what to do next."""

from __future__ import annotations

import math
from typing import Any

from evalkit.render.compare_next import already_ran, compare_command, next_steps, unproven
from evalkit.render.inert import inert_data, md_code, md_text

_TRUST_MARK = {
    "pass": "ok",
    "note": "note",
    "warn": "warn",
    "fail": "FAIL",
    "unverified": "UNVERIFIED",
    "accepted": "ACCEPTED",
}
# Run data is inert Markdown through the shared helpers (render/inert.py): no HTML, link
# or cell break; a code span no backtick in the value closes.
_cell = md_text


def _num(value: Any, sign: bool = False) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "n/a"
    return f"{value:+.2f}" if sign else f"{value:.2f}"


def _ci(pair: Any) -> str:
    lo, hi = pair or (None, None)
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (lo, hi)):
        return "n/a"
    return f"[{lo:+.2f}, {hi:+.2f}]"


def _score_table(tasks: list[dict[str, Any]]) -> list[str]:
    out = [
        "| benchmark | baseline | candidate | delta | 95% CI | MDE | margin | verdict |",
        "|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for t in tasks:
        out.append(
            f"| {_cell(t['benchmark'])} | {_num(t.get('base'))} | {_num(t.get('cand'))} "
            f"| {_num(t.get('delta'), sign=True)} | {_ci(t.get('ci95'))} "
            f"| {_num(t.get('mde'))} | {_num(t.get('margin'))} | **{_cell(t['verdict'])}** |"
        )
    return out


def _sources(tasks: list[dict[str, Any]]) -> list[str]:
    out = []
    for t in tasks:
        source = t.get("source") or {}
        scaled = " (a 0-1 score, shown x 100)" if t.get("scale") == "0-1" else ""
        for side, name in (("base", "baseline"), ("cand", "candidate")):
            where = source.get(side)
            if where is None:
                out.append(f"- {_cell(t['benchmark'])} {name}: no score")
                continue
            out.append(
                f"- {_cell(t['benchmark'])} {name} {_num(t.get(side))}: key "
                f"{md_code(where.get('key') or '?', cell=False)} in "
                f"{md_code(where['file'], cell=False)}{scaled}"
            )
    return out


def _validation(tasks: list[dict[str, Any]]) -> list[str]:
    out = []
    for t in tasks:
        v = t.get("validation") or {}
        out.append(
            f"- {_cell(t['benchmark'])}: baseline {_cell(v.get('base', 'not run'))}, "
            f"candidate {_cell(v.get('cand', 'not run'))} (`evalkit validate`)"
        )
    return out


def _trust(tasks: list[dict[str, Any]]) -> list[str]:
    out = []
    for t in tasks:
        checks = t.get("trust") or []
        if t.get("outcomes"):
            shift = t.get("failures") or {}
            share = (
                f": failed share {shift['base_failed_share']:.1%} vs "
                f"{shift['cand_failed_share']:.1%} (p {shift['p']:.3g})"
                if "p" in shift
                else ""
            )
            out.append(
                f"- {_cell(t['benchmark'])}: items paired by id and prompt; failed items "
                f"(reasoning-only, truncated, endpoint errors) compared between the arms{share}"
            )
        if not checks:
            out.append(
                f"- {_cell(t['benchmark'])}: no item-level data; compared unpaired on the "
                "headline score and its stderr"
            )
            continue
        for c in checks:
            out.append(
                f"- {_cell(t['benchmark'])} [{_TRUST_MARK.get(c['status'], c['status'])}] "
                f"{_cell(c['id'])}: {_cell(c['message'])}"
            )
    return out


def _gaps(tasks: list[dict[str, Any]]) -> list[str]:
    """Every check that did not prove its point: evidence absent (unverified) or waived by
    the user (accepted), first in the note, as plainly as a failure."""
    out = [
        f"- {_cell(t['benchmark'])} **{_TRUST_MARK[c['status']]}** {_cell(name)}: "
        f"{_cell(c['message'])}."
        + (f" Record next time: {_cell(c['record'])}." if c.get("record") else "")
        for t, c, name in unproven(tasks, "unverified", "accepted")
    ]
    if not out:
        return []
    return ["### Unproven: unverified checks and accepted gaps", "", *out, ""]


def _verbosity(tasks: list[dict[str, Any]]) -> list[str]:
    """Each task's mean completion tokens, base against candidate (a cost, not accuracy)."""
    out = []
    for t in tasks:
        v = t.get("verbosity")
        if v:
            mark = "**FLAGGED** " if v["status"] in ("longer", "shorter") else ""
            out.append(f"- {_cell(t['benchmark'])}: {mark}{_cell(v['message'])}")
    return ["### Verbosity", "", *out, ""] if out else []


def pairing_phrase(p: dict[str, Any]) -> str:
    """Every item in its class: paired, only in one run, asked with another prompt."""
    words = (
        f"{p['paired']} paired, {p['only_in_base']} only in base, "
        f"{p['only_in_cand']} only in candidate"
    )
    if p.get("prompt_mismatch") is not None:
        words += f", {p['prompt_mismatch']} with a different prompt"
    share, most = 100 * p["unpaired_share"], 100 * p["max_unpaired_share"]
    return f"{words} ({share:.1f} % unpaired; above {most:.0f} % not comparable)"


def _verdicts(doc: dict[str, Any]) -> list[str]:
    out = []
    for t in doc["tasks"]:
        pairing = f"{t['n']} items paired" if t.get("paired") else "unpaired"
        if t.get("pairing"):
            pairing = pairing_phrase(t["pairing"])
        margin = t.get("margin_rule") or _num(t.get("margin"))
        out.append(
            f"- {_cell(t['benchmark'])}: **{_cell(t['verdict'])}**, delta "
            f"{_num(t.get('delta'), sign=True)} points, 95% CI {_ci(t.get('ci95'))}, "
            f"MDE {_num(t.get('mde'))}, margin {_cell(margin)} ({pairing})"
        )
        for reason in t.get("reasons", []):
            out.append(f"  - {_cell(reason)}")
    return out


def render_release_note(doc: dict[str, Any]) -> str:
    raw, doc = doc, inert_data(doc)  # the commands are built from the raw paths, quoted
    paths = doc["paths"]
    margin = (
        f"gate file {md_code(doc['gate_file'])}"
        if doc.get("gate_file")
        else _cell(doc["default_margin"])
    )
    waived = sum(c.get("status") == "accepted" for t in doc["tasks"] for c in t.get("trust") or [])
    gate = _cell(doc["gate"]) + (f" ({waived} gap(s) accepted without evidence)" if waived else "")
    out = [
        f"## Accuracy: candidate vs baseline: {gate}",
        "",
        f"Baseline {md_code(paths['base'])}, candidate {md_code(paths['cand'])}; margin {margin}. "
        "Scores in points.",
        "",
        *_score_table(doc["tasks"]),
        "",
        *_gaps(doc["tasks"]),
        "### Where each score comes from",
        "",
        *_sources(doc["tasks"]),
        "",
        "### Validation",
        "",
        *_validation(doc["tasks"]),
        "",
        "### Trust checks",
        "",
        *_trust(doc["tasks"]),
        "",
        *_verbosity(doc["tasks"]),
        f"### Verdict: {_cell(doc['gate'])}",
        "",
        *_verdicts(doc),
        *[f"- {_cell(r)}" for r in doc.get("reasons", [])],
        "",
        "### Next",
        "",
        *[f"- {_cell(step)}" for step in next_steps(raw)],
        "",
        f"_Made by {md_code(compare_command(raw, ' --format markdown'))} (seed {doc['seed']}, "
        f"{doc['bootstrap_replicates']} bootstrap replicates); it ran "
        f"{_cell('; '.join(already_ran(doc)))}._",
    ]
    return "\n".join(out) + "\n"
