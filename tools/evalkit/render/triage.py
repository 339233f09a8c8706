"""The text of the triage section of `evalkit status`: why a task ended, the quoted
evidence, whether the same config can succeed, the fix and the next command; early
signs on a live task. The document comes from evalkit.checks.failures; every quoted
line there is already redacted, and here it is shown as data (control characters
escaped), never as markup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalkit.render.inert import one_line as _inert

FAILURES_DOC = "references/failures.md"


def _cause_lines(cause: Any, head: str) -> list[str]:
    rule, hit = cause.rule, cause.hit
    more = f" (+{cause.count - 1} more)" if cause.count > 1 else ""
    where = f"{_inert(hit.where + hit.file)}:{hit.line}"
    lines = [
        f"  {head} {rule.id}: {_inert(cause.sentence)}",
        f"    evidence: {where}: {_inert(hit.text.strip())}{more}",
    ]
    for n, change in enumerate(cause.changes):
        why = f"   ({_inert(change.why)})" if change.why else ""
        head = "fix:" if n == 0 else ("and:" if change.joint else "or: ")
        lines.append(f"    {head} {change.key}: {_inert(change.value)}{why}")
    if getattr(cause, "recognised", True):
        lines.append(f"    source: {rule.source.text()}; see {FAILURES_DOC}#{rule.id}")
    else:  # no signature: no source to name, the quoted line is the lead
        lines.append(f"    see {FAILURES_DOC} (not recognised: read the quoted line first)")
    return lines


def triage_lines(t: Any) -> list[str]:
    """The lines for one task (none for a healthy one)."""
    if t is None:
        return []
    lines: list[str] = []
    if t.cause is not None:
        lines += _cause_lines(t.cause, "why it ended:")
        for other in t.also[:3]:
            at = f"{_inert(other.hit.where + other.hit.file)}:{other.hit.line}"
            lines.append(f"    also seen: {other.rule.id} at {at}")
    for warning in t.warnings:
        lines += _cause_lines(warning, "[warn] early sign:")
    a = t.attempts
    if a.count > 1 or a.streak > 1:
        tail = f"; the last {a.streak} ended by {a.streak_cause}" if a.streak > 1 else ""
        lines.append(f"  attempts: {a.count} Slurm jobs ({', '.join(a.jobs[-5:])}){tail}")
    for line in t.slurm:
        lines.append(f"  slurm: {_inert(line)}")
    if t.verdict:
        lines.append(f"  resubmit: {t.verdict}")
    return lines


def says_stop(t: Any) -> bool:
    """A live task's signature that will end it: the answer is to stop it now."""
    return bool(t is not None and t.warnings and t.next)


def triage_steps(triages: Sequence[Any], named: bool = False) -> list[str]:
    """The next commands of the tasks with a cause, in task order (NAMED: each prefixed
    with its task, when the run has several)."""
    steps: list[str] = []
    for t in triages:
        if t is None:
            continue
        for step in t.next:
            steps.append(f"{t.task}: {step}" if named else step)
    return steps
