"""The fingerprint diff: which serving and sampling settings differ between the sides, and
what each difference means for the comparison.

Every field has one declared consequence, with a one-line reason (the docs section in
references/compare.md is generated from this table):
- not_comparable: the delta would measure the setting as well as the checkpoint;
- needs_acceptance: another serving or harness image; it blocks the pass until the user
  accepts it knowingly (a quantized checkpoint may need a newer server);
- warning: it may move the score, but it is a difference of the stack, worth a look;
A field a side did not record is `unverified` when its difference would block (the row
cannot pass: fail closed), else a `note`.
The checkpoint differing is the point of the comparison: no finding (the trust check
`checkpoint` already fails a pair that shares one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.runs.fingerprint import FIELDS, READS, Fingerprint
from evalkit.runs.records import canonical, same

NOT_COMPARABLE, WARNING, NOTE = "not_comparable", "warning", "note"
# A difference of the serving stack: it blocks a pass until the user accepts it knowingly
# (`--accept FIELD`), since a quantized checkpoint may need a newer server than its baseline.
ACCEPT = "needs_acceptance"
UNVERIFIED = "unverified"  # a field that could move the score, not recorded on a side
CONSEQUENCES = (NOT_COMPARABLE, ACCEPT, WARNING, NOTE, UNVERIFIED)


@dataclass(frozen=True)
class Rule:
    consequence: str | None  # on a difference; None: a difference is no finding
    why: str


# One entry per fingerprint field, in the fingerprint's order.
TABLE: dict[str, Rule] = {
    "checkpoint": Rule(
        None,
        "the checkpoint is what the comparison measures; the same checkpoint on both sides"
        " is the trust check `checkpoint`",
    ),
    "served_model": Rule(
        NOTE,
        "a name the server answers to; it changes no answer, but a different name can mean"
        " another deployment than intended",
    ),
    "images": Rule(
        ACCEPT,
        "another server or proxy image brings another vLLM, kernels and parsers, so part of"
        " the delta would be the server's: serve both sides from one image, or accept the"
        " difference knowingly (`--accept images`)",
    ),
    "vllm_version": Rule(
        WARNING,
        "another vLLM can change kernels, sampling and the chat template's rendering, so"
        " part of a delta may be the server's",
    ),
    "reasoning_parser": Rule(
        WARNING,
        "the parser decides what reaches `content`; its names change between vLLM versions"
        " for the same behaviour, and when it misparses, the item outcomes"
        " (reasoning_only) show it",
    ),
    "reasoning_traces": Rule(
        NOT_COMPARABLE,
        "stripping (or not) the thinking before grading changes the text the harness"
        " grades on every item",
    ),
    "max_model_len": Rule(
        WARNING,
        "a shorter context only changes the items that reach it, and those fail visibly"
        " (truncated or refused); otherwise it changes memory, not answers",
    ),
    "temperature": Rule(NOT_COMPARABLE, "sampling temperature changes every answer's distribution"),
    "top_p": Rule(NOT_COMPARABLE, "nucleus sampling changes every answer's distribution"),
    "max_new_tokens": Rule(
        NOT_COMPARABLE,
        "a lower cap cuts long (reasoning) answers before they conclude, a higher one lets"
        " them finish: the score moves without the checkpoint",
    ),
    "chat_template_kwargs": Rule(
        NOT_COMPARABLE,
        "chat-template arguments such as enable_thinking switch the model's mode, which"
        " changes every answer",
    ),
    "system_prompt": Rule(NOT_COMPARABLE, "another system prompt is another task for the model"),
    "harness_version": Rule(
        ACCEPT,
        "another harness release can change prompts, answer extraction or scoring: rerun"
        " one side on the other's image, or accept it knowingly (`--accept harness-version`)",
    ),
    "launcher_version": Rule(
        WARNING,
        "the launcher renders the job and merges the configs; another release can change"
        " what reaches the harness",
    ),
    "gym_version": Rule(
        NOT_COMPARABLE,
        "NeMo Gym prepares the data and grades the rollouts: another commit is another"
        " measurement (as the trust check `gym-version` says)",
    ),
    "dataset": Rule(
        NOT_COMPARABLE,
        "other items, or other prompts for them, make the scores of two different tests",
    ),
    "repeats": Rule(
        NOT_COMPARABLE,
        "the number of samples per item changes the score's variance and, for"
        " pass@k-style metrics, its meaning",
    ),
    "limit_samples": Rule(
        NOT_COMPARABLE,
        "a limited run scores a subset: its mean is not the full run's",
    ),
}


@dataclass(frozen=True)
class FieldDiff:
    field: str
    base: Any
    cand: Any
    consequence: str  # not_comparable | warning | note
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "base": self.base,
            "cand": self.cand,
            "consequence": self.consequence,
            "reason": self.reason,
        }


def shown(value: Any) -> str:
    """A value in a reason: JSON for containers, `g` for floats, strings as they are."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (dict, list)):
        return canonical(value)
    return str(value)


def diff_fingerprints(base: Fingerprint, cand: Fingerprint) -> list[FieldDiff]:
    """The fields that differ, or that a side did not record, in the fingerprint's order."""
    out: list[FieldDiff] = []
    for name in FIELDS:
        rule = TABLE[name]
        b, c = base[name], cand[name]
        if rule.consequence is None:
            continue
        if b.value is None or c.value is None:
            where = (
                "either side"
                if b.value is None and c.value is None
                else ("the baseline" if b.value is None else "the candidate")
            )
            # fail closed: a field whose difference would block the pass blocks it unrecorded
            kind = UNVERIFIED if rule.consequence in (NOT_COMPARABLE, ACCEPT) else NOTE
            out.append(
                FieldDiff(
                    name, b.value, c.value, kind, f"{name} not recorded on {where}; not checked"
                )
            )
            continue
        if same(b.value, c.value):
            continue
        sources = f" (base {b.source or 'unknown'}; candidate {c.source or 'unknown'})"
        reason = (
            f"{name} differs: base {shown(b.value)}, candidate {shown(c.value)}{sources}:"
            f" {rule.why}"
        )
        out.append(FieldDiff(name, b.value, c.value, rule.consequence, reason))
    return out


def docs_rows() -> list[tuple[str, str, str, str]]:
    """(field, what is read from where, consequence on a difference, why) per field."""
    rows = []
    for name in FIELDS:
        rule = TABLE[name]
        rows.append((name, READS[name], rule.consequence or "none (the point)", rule.why))
    return rows


__all__ = [
    "CONSEQUENCES",
    "ACCEPT",
    "NOTE",
    "NOT_COMPARABLE",
    "UNVERIFIED",
    "TABLE",
    "WARNING",
    "FieldDiff",
    "Rule",
    "diff_fingerprints",
    "docs_rows",
    "same",
]
