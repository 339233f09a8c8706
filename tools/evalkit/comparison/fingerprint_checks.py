"""The run fingerprints of a pair, diffed (comparison/fingerprint.py) and turned into
trust checks with id `fingerprint`, one per field that differs or was not recorded: a
`not_comparable` consequence fails the task (the field named first among its reasons), a
`warning` is shown as `warn`, a `note` as `note`. The two records and the diff travel in
the row's `fingerprint` (JSON), so text, JSON, the report and the release note agree."""

from __future__ import annotations

from typing import Any

from evalkit.comparison.trust import FAIL, NOTE, TrustCheck

WARN = "warn"
STATUS = {"not_comparable": FAIL, "warning": WARN, "note": NOTE}


def _shown(value: Any) -> str:
    text = "not recorded" if value is None else str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def fingerprint_checks(base: Any, cand: Any) -> tuple[list[TrustCheck], dict[str, Any]]:
    """(checks, the row's `fingerprint` document) for two runs' fingerprints."""
    from evalkit.comparison.fingerprint import diff_fingerprints

    diffs = diff_fingerprints(base, cand)
    checks = [
        TrustCheck(
            "fingerprint",
            STATUS.get(d.consequence, NOTE),
            f"fingerprint {d.field}: base {_shown(d.base)}, candidate {_shown(d.cand)}: {d.reason}",
            {"field": d.field, "consequence": d.consequence},
        )
        for d in diffs
    ]
    document = {
        "base": base.to_json(),
        "cand": cand.to_json(),
        "diff": [
            {
                "field": d.field,
                "base": d.base,
                "cand": d.cand,
                "consequence": d.consequence,
                "reason": d.reason,
            }
            for d in diffs
        ],
    }
    return checks, document


__all__ = ["WARN", "fingerprint_checks"]
