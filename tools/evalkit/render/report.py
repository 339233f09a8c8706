"""Rendering results: JSON documents on stdout and findings as text.

Commands build plain dicts (or Finding lists); only this module turns them into bytes.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import IO, Any

from evalkit.findings import Finding, sort_findings, summarize


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a number that is not finite is reported as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_json(document: Any, out: IO[str] | None = None, indent: int | None = 2) -> None:
    from evalkit.render.output import write_structured
    from evalkit.render.redact import redact_data

    doc = redact_data(_finite(document))  # as data: the JSON text is never rewritten
    text = json.dumps(doc, indent=indent, ensure_ascii=False, allow_nan=False)
    write_structured(text + "\n", out or sys.stdout)


def findings_text(findings: Iterable[Finding], show_fix: bool = True) -> str:
    """Grouped by file; one line per finding, then its fix indented below it."""
    from evalkit.render.inert import one_line

    ordered = sort_findings(findings)
    lines: list[str] = []
    current_file: object = object()
    for f in ordered:
        if f.file != current_file:
            current_file = f.file
            if lines:
                lines.append("")
            lines.append(one_line(f.file or "(no file)"))
        where = f"{f.line}" if f.line else "-"
        key = f" [{f.path}]" if f.path else ""
        lines.append(one_line(f"  {where}: {f.severity} {f.rule}{key} {f.message}"))
        if show_fix and f.fix:
            lines.append(one_line(f"      fix: {f.fix}"))
    counts = summarize(ordered)
    if lines:
        lines.append("")
    lines.append(
        f"{counts['errors']} error(s), {counts['warnings']} warning(s)"
        if ordered
        else "no findings"
    )
    return "\n".join(lines) + "\n"


def format_number(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain aligned text table (numbers right-aligned, text left-aligned); each cell on
    one line (render.inert.one_line), so no value can break the table."""
    from evalkit.render.inert import one_line

    headers = [one_line(h) for h in headers]
    rows = [[one_line(cell) for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def fmt(row: list[str]) -> str:
        cells = []
        for i, cell in enumerate(row):
            numeric = cell.replace(".", "", 1).replace("-", "", 1).replace("+", "", 1).isdigit()
            cells.append(cell.rjust(widths[i]) if numeric else cell.ljust(widths[i]))
        return "  ".join(cells).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(headers), sep, *(fmt(r) for r in rows)]) + "\n"


def bar(fraction: float | None, width: int = 20) -> str:
    """A text bar for a 0..1 fraction, e.g. '#######.............'."""
    if fraction is None or not math.isfinite(fraction):
        return " " * width
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return "#" * filled + "." * (width - filled)


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render_sarif(findings: Iterable[Finding], rules: dict) -> dict:
    """A SARIF 2.1.0 log: one run, the rules as its driver's rules, one result per finding.

    `rules` maps a code to an object with `name`, `severity` and `summary` (the preflight
    registry's Rule).
    """
    from evalkit import __version__

    ordered = sort_findings(findings)
    used = sorted({f.rule for f in ordered} | set(rules))
    index = {code: i for i, code in enumerate(used)}
    descriptors = []
    for code in used:
        rule = rules.get(code)
        descriptor: dict[str, Any] = {"id": code}
        if rule is not None:
            descriptor["name"] = rule.name
            descriptor["shortDescription"] = {"text": rule.summary}
            descriptor["defaultConfiguration"] = {"level": _SARIF_LEVEL[rule.severity]}
            descriptor["help"] = {"text": f"references/rules.md#{code.lower()} in the skill"}
        descriptors.append(descriptor)
    results = []
    for f in ordered:
        text = f.message if not f.path else f"{f.path}: {f.message}"
        if f.fix:
            text += f" (fix: {f.fix})"
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": text},
        }
        if f.file:
            location: dict[str, Any] = {"artifactLocation": {"uri": f.file}}
            if f.line:
                location["region"] = {"startLine": f.line}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "evalkit preflight",
                        "version": __version__,
                        "rules": descriptors,
                    }
                },
                "results": results,
            }
        ],
    }
