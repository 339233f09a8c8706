"""The run fingerprints of a pair, diffed (comparison/fingerprint.py) and turned into
trust checks with id `fingerprint`, one per field that differs or was not recorded: a
`not_comparable` consequence fails the task (the field named among its reasons), so does
`needs_acceptance` unless the user accepts it (`--accept FIELD`); an unrecorded field that
could block is `unverified` (the row cannot pass), a `warning` is shown as `warn`, a
`note` as `note`. A setting a side recorded twice with two values fails
(`record-agreement`, `record_checks`). The two records and the whole diff
travel in the row's `fingerprint` (JSON), so text, JSON, the report and the release note
agree. Fields a trust check of its own judges are kept in the diff, not repeated."""

from __future__ import annotations

from typing import Any

from evalkit.comparison.trust import FAIL, NOTE, UNVERIFIED, TrustCheck, waived

WARN = "warn"
STATUS = {
    "not_comparable": FAIL,
    "needs_acceptance": FAIL,
    "warning": WARN,
    "note": NOTE,
    "unverified": UNVERIFIED,
}
OWNED = {
    "temperature": "sampling-temperature",
    "top_p": "sampling-top_p",
    "gym_version": "gym-version",
    "harness_version": "harness-version",
    # Which items each side holds is the item accounting's (its 5 % share; a candidate
    # missing a few items is their failures, not another dataset).
    "dataset": "pairing",
}


def record_checks(base: Any, cand: Any) -> list[TrustCheck]:
    """A setting a side recorded twice with two values (its config against the harness's
    copy in results.yml, the rollouts against the config): that side's record cannot say
    what ran, so the pair fails, naming both sources."""
    checks = []
    for side, fingerprint in (("baseline", base), ("candidate", cand)):
        for conflict in getattr(fingerprint, "conflicts", ()):
            checks.append(
                TrustCheck(
                    "record-agreement",
                    FAIL,
                    f"{side}: {conflict.message()}: the run's own records disagree on what it ran",
                    {"field": conflict.field, "side": side},
                )
            )
    return checks


def fingerprint_checks(
    base: Any, cand: Any, accepted: frozenset[str] = frozenset()
) -> tuple[list[TrustCheck], dict[str, Any]]:
    """(checks, the row's `fingerprint` document) for two runs' fingerprints."""
    from evalkit.comparison.fingerprint import diff_fingerprints
    from evalkit.runs.fingerprint import READS

    diffs = diff_fingerprints(base, cand)
    checks = [
        TrustCheck(
            "fingerprint",
            STATUS.get(d.consequence, NOTE),
            d.reason,
            {"field": d.field, "consequence": d.consequence}
            | ({"acceptable": True} if d.consequence == "needs_acceptance" else {}),
            f"{d.field}: {READS[d.field]}" if d.consequence == "unverified" else None,
        )
        for d in diffs
        if d.field not in OWNED
    ]
    checks = waived(checks, accepted)
    document = {
        "base": base.to_json(),
        "cand": cand.to_json(),
        "diff": [d.to_json() for d in diffs],
        "judged_by_trust_checks": dict(OWNED),
    }
    return checks, document


__all__ = ["OWNED", "WARN", "fingerprint_checks", "record_checks"]
