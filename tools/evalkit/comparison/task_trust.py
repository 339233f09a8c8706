"""The trust checks every task gets, whatever its adapter (issue 37): a side is what its
run recorded (path, provenance, sampling, response fingerprints, validate verdict), and
the same list of checks runs on every pair. A check whose data is not there is
`unverified`, naming the side and what to record (issue 47): never a silent pass.

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
from evalkit.comparison.trust import FAIL, NOTE, PASS, UNVERIFIED, TrustCheck
from evalkit.runs.settings import SAMPLING_KEYS

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
# What `--accept` may name: a trust check that can be unverified, a fingerprint field
# (unrecorded, or an acceptable difference such as images), or a row's declared scale.
# record-agreement and a difference in sampling are never gaps: they are other measurements.
ACCEPTABLE = (*TRUST_CHECK_IDS, "scale")


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
    stored_replies: Mapping | None = None  # the harness's per-item replies; None: none kept
    stored_source: str | None = None


def sampling_of(fingerprint: Any) -> tuple[dict[str, float], str | None]:
    """(temperature/top_p, where they were read) from the task's own record: the run
    fingerprint (runs/fingerprint.py), which reads the task's own config section and
    outputs, never another task's metadata."""
    sampling: dict[str, float] = {}
    sources: list[str] = []
    for key in SAMPLING_KEYS:
        found = fingerprint[key] if fingerprint is not None else None
        value = found.value if found is not None else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            sampling[key] = float(value)
            if found.source and found.source not in sources:
                sources.append(found.source)
    return sampling, ", ".join(sources) or None


def side_of_run(view: Any, validation: tuple[str, list[str]] | None) -> TrustSide:
    """A side from a task's view (benchmarks.view.TaskView): its settings from its record."""
    fingerprint = view.fingerprint()
    sampling, where = sampling_of(fingerprint)
    store = view.items.source if view.items is not None else None
    return TrustSide(
        path=view.task_dir,
        provenance=view.provenance,
        sampling=sampling,
        sampling_source=where,
        fingerprints=view.responses(),
        responses_source="adapter response cache (cache/responses/cache.db)"
        if view.kind != "gym"
        else "rollouts",
        validation=validation,
        harness_version=_recorded(fingerprint, "harness_version"),
        stored_replies=view.stored_replies() if view.kind != "gym" else None,
        stored_source=f"the harness's item store ({store})" if store else "the harness's items",
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


RECORD_REPLIES = (
    "per-response records on both sides: the adapter's response cache (adapter_config "
    "use_caching: true, nemo-evaluator's default, kept under artifacts/cache/responses/), the "
    "harness's own per-item files (simple-evals' cache.sqlite, lm-eval's samples_*.jsonl), or "
    "NeMo Gym's rollouts"
)


def _reuse_in(
    base: Mapping, cand: Mapping, source: str, greedy: bool, copies: Callable | None
) -> TrustCheck:
    check = trust.check_reuse(base, cand, greedy=greedy, copies_prompt=copies)
    named = TrustCheck(
        check.id, check.status, f"{source}: {check.message}", check.counts, check.record
    )
    if check.status == PASS and not check.counts.get("paired_responses"):
        return trust.unverified(
            "response-reuse",
            f"{source}: no request in common between the two records (different prompts or "
            "settings): reuse not checked",
            RECORD_REPLIES,
            **check.counts,
        )
    return named


def reuse_check(base: TrustSide, cand: TrustSide) -> TrustCheck:
    """Reuse looked for in every place both sides keep replies: the adapter's cache (or
    the rollouts) and the harness's own per-item store. One failure fails; with no record
    in common the check is unverified, never a pass."""
    greedy = base.sampling.get("temperature") == 0 and cand.sampling.get("temperature") == 0
    results: list[TrustCheck] = []
    if base.fingerprints is not None and cand.fingerprints is not None:
        copies = None
        if base.copies_prompt is not None:
            fps = base.fingerprints
            copies = lambda slot: base.copies_prompt(fps[slot])  # noqa: E731
        source = base.responses_source or "responses"
        results.append(_reuse_in(base.fingerprints, cand.fingerprints, source, greedy, copies))
    if base.stored_replies is not None and cand.stored_replies is not None:
        source = base.stored_source or "the harness's items"
        results.append(_reuse_in(base.stored_replies, cand.stored_replies, source, greedy, None))
    for status in (FAIL, UNVERIFIED):
        if status == UNVERIFIED and any(r.status in (PASS, NOTE) for r in results):
            break  # one record compared request by request suffices
        hit = [r for r in results if r.status == status]
        if hit:
            return hit[0]
    if results:
        return next(r for r in results if r.status in (PASS, NOTE))
    where = trust.missing_where(
        base.fingerprints or base.stored_replies, cand.fingerprints or cand.stored_replies
    )
    return trust.unverified(
        "response-reuse",
        f"no response record in common {where} (no adapter response cache, item store or "
        "rollouts on both sides): reuse of responses not checked",
        RECORD_REPLIES,
    )


def _harness(base: TrustSide, cand: TrustSide) -> TrustCheck:
    b, c = base.harness_version, cand.harness_version
    if b is None or c is None:
        return trust.unverified(
            "harness-version",
            f"harness version not recorded {trust.missing_where(b, c)}; not checked",
            "run.sub as the launcher wrote it: the evaluation container's --container-image "
            "is the harness release",
        )
    if b != c:  # the whole reference, tag and digest: 26.03 is not 25.11
        return TrustCheck(
            "harness-version",
            FAIL,
            f"harness versions differ: base {b}, candidate {c} (prompts, answer extraction "
            "and scoring may differ between versions): rerun one side on the other's image, "
            "or accept it knowingly with --accept harness-version",
            {"base": b, "cand": c, "acceptable": True},
        )
    return TrustCheck("harness-version", PASS, f"same harness version ({b})")


def all_checks(
    base: TrustSide, cand: TrustSide, accepted: frozenset[str] = frozenset()
) -> list[TrustCheck]:
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
    mixed = {
        key
        for side in (base, cand)
        for key, values in side.mixed_sampling.items()
        if len(values) > 1
    }
    checks = [c for c in checks if c.id.removeprefix("sampling-") not in mixed]
    for side, name in ((base, "base"), (cand, "candidate")):
        for key, values in side.mixed_sampling.items():
            shown = ", ".join(f"{v:g}" for v in values)
            checks.append(
                TrustCheck(
                    f"sampling-{key}",
                    FAIL,
                    f"{name}: the rollouts were sent at several {key} values ({shown}): "
                    "one run measured under two settings",
                    {"side": name, "values": list(values)},
                )
            )
    checks.append(reuse_check(base, cand))
    checks += trust.check_provenance(base.provenance, cand.provenance)
    if not any(c.id == "gym-version" for c in checks) and (
        base.provenance.get("gym_version") or cand.provenance.get("gym_version")
    ):
        where = trust.missing_where(
            base.provenance.get("gym_version"), cand.provenance.get("gym_version")
        )
        checks.append(
            trust.unverified(
                "gym-version",
                f"NeMo Gym version not recorded {where}; not checked",
                "the client log's NeMo Gym version banner, or install_on_the_fly.commit in "
                "the task's config",
            )
        )
    if base.harness_versioned or cand.harness_versioned:
        checks.append(_harness(base, cand))
    return trust.waived(checks, accepted)


__all__ = [
    "ACCEPTABLE",
    "TRUST_CHECK_IDS",
    "TrustSide",
    "all_checks",
    "reuse_check",
    "side_of_run",
]
