"""Trust checks for a baseline/candidate pair, run before any delta is believed.

Each check takes what two loaded runs recorded (fingerprints of their responses, their
provenance, their sampling, their validate verdicts) and returns a `TrustCheck`: `pass`,
`fail` (the pair is `not_comparable`), `unverified` (the evidence the check needs is absent:
the row cannot be `no_regression`, and `record` says what to keep next time), `accepted` (an
unverified check the user waived with `--accept ID`), or `note` (information that cannot move
the score). Fail closed: a check that could not run never reads as a pass. The numbers behind
every check travel in `counts`, so text, JSON and the report show the same evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PASS, NOTE, FAIL = "pass", "note", "fail"
UNVERIFIED, ACCEPTED = "unverified", "accepted"
# Two independently sampled runs share no response ids, and their non-trivial responses
# (not an exact answer, not empty) coincide byte for byte only by rare accident: a
# couple of short identical texts are tolerated, a share beyond this is reuse.
REUSE_MAX_SHARE = 0.02
REUSE_MIN_COUNT = 3


def missing_where(base: object, cand: object) -> str:
    """Which side lacks a value, in words: "on either side", "on the baseline", ..."""
    if base is None and cand is None:
        return "on either side"
    return "on the baseline" if base is None else "on the candidate"


@dataclass(frozen=True)
class TrustCheck:
    id: str
    status: str  # pass | fail | unverified | accepted | note | warn
    message: str
    counts: dict[str, Any] = field(default_factory=dict)
    record: str | None = None  # unverified: the evidence to record next time, and where

    def as_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "status": self.status, "message": self.message, **self.counts}
        if self.record is not None:
            out["record"] = self.record
        return out


def unverified(check_id: str, message: str, record: str, **counts: Any) -> TrustCheck:
    return TrustCheck(check_id, UNVERIFIED, message, dict(counts), record)


def check_reuse(
    base: Mapping,
    cand: Mapping,
    *,
    greedy: bool = False,
    copies_prompt: Callable[[Any], bool] | None = None,
) -> TrustCheck:
    """Response reuse between two runs: fingerprints keyed by (item, rollout index).

    Identical response ids always mean the same responses (ids are minted per request).
    Byte-identical non-trivial responses mean reuse when the runs sampled; with greedy
    decoding (temperature 0 on both sides) near-identical checkpoints may legitimately
    agree, so there they are only noted. `copies_prompt(slot)` says whether the baseline's
    response at SLOT is a verbatim copy from its prompt (MRCR: a needle reproduced exactly
    is the same bytes in any run); it is asked only about responses identical on both
    sides, and those copies are not counted."""
    shared = base.keys() & cand.keys()
    same_id = same_text = compared = copies = with_ids = 0
    for slot in shared:
        b, c = base[slot], cand[slot]
        if b.response_id is not None and c.response_id is not None:
            with_ids += 1
        if b.response_id is not None and b.response_id == c.response_id:
            same_id += 1
        if b.text_digest is not None and c.text_digest is not None:
            if b.text_digest == c.text_digest:
                if copies_prompt is not None and copies_prompt(slot):
                    copies += 1
                    continue
                same_text += 1
            compared += 1
    counts = {
        "paired_responses": len(shared),
        "identical_response_ids": same_id,
        "compared_nontrivial": compared,
        "identical_nontrivial": same_text,
        "identical_verbatim_prompt_copies": copies,
    }
    share = same_text / compared if compared else 0.0
    if same_id:
        return TrustCheck(
            "response-reuse",
            FAIL,
            f"{same_id} of {len(shared)} paired responses carry the same response id on both "
            "sides: the candidate reused the baseline's responses (a shared cache or a copied "
            "directory), so these are not two measurements",
            counts,
        )
    if same_text >= REUSE_MIN_COUNT and share > REUSE_MAX_SHARE:
        message = (
            f"{same_text} of {compared} non-trivial paired responses ({share:.1%}) are "
            "byte-identical (exact answers and empty responses not counted)"
        )
        if greedy and with_ids == len(shared):
            return TrustCheck(
                "response-reuse",
                NOTE,
                message + "; both runs decode greedily (temperature 0), where close "
                "checkpoints can agree, and every paired response carries its own id",
                counts,
            )
        if greedy:
            return unverified(
                "response-reuse",
                message + "; both runs decode greedily (temperature 0), where close "
                "checkpoints can agree, but without response ids on both sides agreement "
                "cannot be told from reuse",
                "response ids: keep the adapter's response cache (use_caching: true) or the "
                "rollouts' response ids on both sides",
                **counts,
            )
        return TrustCheck(
            "response-reuse",
            FAIL,
            message + f" > {REUSE_MAX_SHARE:.0%}: two sampled runs do not agree like this; "
            "the candidate reused the baseline's responses",
            counts,
        )
    return TrustCheck(
        "response-reuse",
        PASS,
        f"no shared response ids; {same_text} of {compared} non-trivial paired responses "
        "byte-identical",
        counts,
    )


def check_provenance(base: Mapping[str, Any], cand: Mapping[str, Any]) -> list[TrustCheck]:
    """Provenance dicts (evalkit.runs.run.Provenance.as_dict) of the two sides."""
    checks: list[TrustCheck] = []
    for key, label in (("invocation_id", "invocation id"), ("checkpoint", "checkpoint path")):
        b, c = base.get(key), cand.get(key)
        cid = key.replace("_", "-")
        if b is not None and b == c:
            checks.append(
                TrustCheck(
                    cid,
                    FAIL,
                    f"same {label} on both sides ({b}): this compares a run with itself "
                    "or a copy of it"
                    if key == "invocation_id"
                    else f"same {label} on both sides ({b}): baseline and candidate are "
                    "one checkpoint",
                )
            )
        elif b is None or c is None:
            where = missing_where(b, c)
            checks.append(
                unverified(
                    cid,
                    f"{label} not recorded {where}; not checked",
                    "run.sub as the launcher wrote it (NEL_INVOCATION_ID, the checkpoint "
                    "mount) and artifacts/run_config.yml",
                )
            )
        else:
            checks.append(TrustCheck(cid, PASS, f"{label}s differ"))
    b, c = base.get("gym_version"), cand.get("gym_version")
    if b is not None and c is not None and b != c:
        checks.append(
            TrustCheck(
                "gym-version",
                FAIL,
                f"NeMo Gym versions differ: base {b}, candidate {c} (grading and data "
                "preparation may differ between versions)",
            )
        )
    elif b is not None and c is not None:
        checks.append(TrustCheck("gym-version", PASS, f"same NeMo Gym version ({b})"))
    return checks


def check_sampling(
    base: Mapping[str, float],
    cand: Mapping[str, float],
    keys: tuple[str, ...],
    sources: tuple[str | None, str | None],
) -> list[TrustCheck]:
    checks: list[TrustCheck] = []
    for key in keys:
        b, c = base.get(key), cand.get(key)
        if b is not None and c is not None and b != c:
            checks.append(
                TrustCheck(
                    f"sampling-{key}",
                    FAIL,
                    f"sampling differs: {key} base {b:g}, candidate {c:g}",
                    {"base": b, "cand": c, "base_source": sources[0], "cand_source": sources[1]},
                )
            )
        elif b is None or c is None:
            checks.append(
                unverified(
                    f"sampling-{key}",
                    f"{key} not recorded in the task's own config or outputs "
                    f"{missing_where(b, c)}; not checked",
                    f"{key}: set it in the task's config.params (run_config.yml keeps it), "
                    "or keep the rollouts' responses_create_params (NeMo Gym)",
                )
            )
        else:
            checks.append(
                TrustCheck(
                    f"sampling-{key}",
                    PASS,
                    f"{key} {b:g} on both sides",
                    {"base_source": sources[0], "cand_source": sources[1]},
                )
            )
    return checks


def check_validation(side: str, verdict: str | None, why: list[str]) -> TrustCheck:
    """A side's `evalkit validate` verdict for the task; anything but valid disqualifies."""
    cid = f"validate-{side}"
    if verdict is None:
        return unverified(
            cid,
            f"{side}: not validated",
            "the run directory as the job left it (evalkit validate reads it)",
        )
    if verdict != "valid":
        shown = "; ".join(why[:3])
        return TrustCheck(
            cid,
            FAIL,
            f"{side} run is {verdict} under evalkit validate" + (f": {shown}" if shown else ""),
            {"verdict": verdict},
        )
    return TrustCheck(
        cid,
        PASS,
        f"{side} run is valid under evalkit validate",
        {"verdict": "valid"},
    )


def waived(checks: list[TrustCheck], accepted: frozenset[str]) -> list[TrustCheck]:
    """CHECKS with each gap the user accepted (`--accept ID`, by check id or fingerprint
    field) marked `accepted`: an unverified check, or a difference declared acceptable (a
    serving or harness image). A plain failure (other sampling, reused replies) cannot be
    accepted: it is a different measurement, not a missing proof."""
    out = []
    for check in checks:
        name = check.counts.get("field") or check.id
        waivable = check.status == UNVERIFIED or (
            check.status == FAIL and check.counts.get("acceptable")
        )
        if waivable and (name in accepted or check.id in accepted):
            check = TrustCheck(
                check.id,
                ACCEPTED,
                f"accepted with --accept {name}: {check.message}",
                check.counts,
                check.record,
            )
        out.append(check)
    return out


def failures(checks: list[TrustCheck]) -> list[str]:
    return [c.message for c in checks if c.status == FAIL]
