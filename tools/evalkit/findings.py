"""The common finding shape shared by check-skill and preflight."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    message: str
    path: str | None = None  # dotted key path inside the file, e.g. deployment.command
    file: str | None = None
    line: int | None = None
    fix: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    def to_json(self) -> dict:
        return asdict(self)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(
        findings,
        key=lambda f: (f.file or "", f.line or 0, order[f.severity], f.rule, f.message),
    )


def summarize(findings: Iterable[Finding]) -> dict:
    findings = list(findings)
    return {
        "errors": sum(f.severity == "error" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
    }


def findings_document(findings: Iterable[Finding]) -> dict:
    ordered = sort_findings(findings)
    return {"findings": [f.to_json() for f in ordered], "summary": summarize(ordered)}


def exit_code(findings: Iterable[Finding], strict: bool = False) -> int:
    """1 when any error (or, with strict, any warning) is present, else 0."""
    bad = {"error", "warning"} if strict else {"error"}
    return 1 if any(f.severity in bad for f in findings) else 0
