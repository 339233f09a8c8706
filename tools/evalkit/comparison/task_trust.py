"""The trust checks every task gets, whatever its adapter (issue 37): a side is what its
run recorded (path, provenance, sampling, response fingerprints, validate verdict), and
the same list of checks runs on every pair. A check whose data is not there says so (a
note naming the side), never a silent pass.

Check ids (stable; references/compare.md has one section each): validate-baseline,
validate-candidate, same-run-dir, sampling-temperature, sampling-top_p, response-reuse,
invocation-id, checkpoint, gym-version, harness-version.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.comparison import trust
from evalkit.comparison.trust import FAIL, NOTE, PASS, TrustCheck
from evalkit.runs.settings import SAMPLING_KEYS

WARN = "warn"  # shown, changes no verdict

TRUST_CHECK_IDS = (
    "validate-baseline",
    "validate-candidate",
    "same-run-dir",
    *(f"sampling-{k}" for k in SAMPLING_KEYS),
    "response-reuse",
    "invocation-id",
    "checkpoint",
    "gym-version",
    "harness-version",
)


@dataclass
class TrustSide:
    """What the trust checks read from one side's task run."""

    path: Path
    provenance: dict[str, Any]
    sampling: dict[str, float]
    sampling_source: str | None = None
    mixed_sampling: dict[str, list[float]] = field(default_factory=dict)
    fingerprints: Mapping | None = None  # response fingerprints; None: none recorded
    responses_source: str | None = None  # where the fingerprints come from
    copies_prompt: Callable[[Any], bool] | None = None  # for a fingerprint: verbatim copy?
    validation: tuple[str, list[str]] | None = None
    harness_version: str | None = None
    harness_versioned: bool = True  # False for Gym: gym-version is its harness's version


def side_of_run(view: Any, validation: tuple[str, list[str]] | None) -> TrustSide:
    """A side from a task's view (benchmarks.view.TaskView): sampling from its config."""
    settings = view.settings_or_empty
    where = str(settings.config_path) if settings.config_path else None
    return TrustSide(
        path=view.task_dir,
        provenance=view.provenance,
        sampling=dict(settings.sampling),
        sampling_source=where if settings.sampling else None,
        fingerprints=view.responses(),
        responses_source="adapter response cache (cache/responses/cache.db)"
        if view.kind != "gym"
        else "rollouts",
        validation=validation,
        harness_version=_recorded(view.fingerprint(), "harness_version"),
    )


def _recorded(fingerprint: Any, name: str) -> str | None:
    value = fingerprint.value(name) if fingerprint is not None else None
    return None if value is None else str(value)


def _same_dir(base: TrustSide, cand: TrustSide) -> TrustCheck:
    same = base.path.resolve() == cand.path.resolve()
    if same:
        return TrustCheck(
            "same-run-dir",
            FAIL,
            f"baseline and candidate are the same run directory ({base.path}): a run "
            "compared with itself",
        )
    return TrustCheck("same-run-dir", PASS, "two run directories")


def _reuse(base: TrustSide, cand: TrustSide) -> TrustCheck:
    if base.fingerprints is None or cand.fingerprints is None:
        where = trust.missing_where(base.fingerprints, cand.fingerprints)
        return TrustCheck(
            "response-reuse",
            NOTE,
            f"no response record (adapter response cache or rollouts) {where}: reuse of "
            "responses not checked",
        )
    greedy = base.sampling.get("temperature") == 0 and cand.sampling.get("temperature") == 0
    copies = None
    if base.copies_prompt is not None:
        fps = base.fingerprints
        copies = lambda slot: base.copies_prompt(fps[slot])  # noqa: E731
    check = trust.check_reuse(
        base.fingerprints, cand.fingerprints, greedy=greedy, copies_prompt=copies
    )
    if check.status == PASS and not check.counts.get("paired_responses"):
        return TrustCheck(
            "response-reuse",
            NOTE,
            "no request in common between the two response records (different prompts or "
            "settings): reuse not checked by request",
            check.counts,
        )
    return check


def _harness(base: TrustSide, cand: TrustSide) -> TrustCheck:
    b, c = base.harness_version, cand.harness_version
    if b is None or c is None:
        return TrustCheck(
            "harness-version",
            NOTE,
            f"harness version not recorded {trust.missing_where(b, c)}; not checked",
        )
    if b != c:  # the fingerprint's declared consequence for versions: a warning
        return TrustCheck(
            "harness-version",
            WARN,
            f"harness versions differ: base {b}, candidate {c} (prompts, answer extraction "
            "and scoring may differ between versions): read the release notes before "
            "trusting the delta",
        )
    return TrustCheck("harness-version", PASS, f"same harness version ({b})")


def all_checks(base: TrustSide, cand: TrustSide) -> list[TrustCheck]:
    """Every trust check on one pair, in TRUST_CHECK_IDS order."""
    checks: list[TrustCheck] = []
    if base.validation is not None or cand.validation is not None:
        for side, name in ((base, "baseline"), (cand, "candidate")):
            verdict, why = side.validation if side.validation else (None, [])
            checks.append(trust.check_validation(name, verdict, why))
    checks.append(_same_dir(base, cand))
    checks += trust.check_sampling(
        base.sampling, cand.sampling, SAMPLING_KEYS, (base.sampling_source, cand.sampling_source)
    )
    for side, name in ((base, "base"), (cand, "candidate")):
        for key, values in side.mixed_sampling.items():
            shown = ", ".join(f"{v:g}" for v in values)
            checks.append(
                TrustCheck(
                    f"sampling-{key}", NOTE, f"{name}: rollouts sent several {key} values ({shown})"
                )
            )
    checks.append(_reuse(base, cand))
    checks += trust.check_provenance(base.provenance, cand.provenance)
    if not any(c.id == "gym-version" for c in checks) and (
        base.provenance.get("gym_version") or cand.provenance.get("gym_version")
    ):
        where = trust.missing_where(
            base.provenance.get("gym_version"), cand.provenance.get("gym_version")
        )
        checks.append(
            TrustCheck("gym-version", NOTE, f"NeMo Gym version not recorded {where}; not checked")
        )
    if base.harness_versioned or cand.harness_versioned:
        checks.append(_harness(base, cand))
    return checks


__all__ = ["TRUST_CHECK_IDS", "TrustSide", "all_checks", "side_of_run"]
