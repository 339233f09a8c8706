"""The last lines of every text view: what the command checked, by rule name, and the
next step as commands carrying the run's own values. An agent reading the output then
needs no reference to know what was covered or what to type next."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from evalkit.render.inert import one_line, shell_word

# Where a run check is explained: checks/docs.py writes one `### <rule id>` section per
# rule into this file, so the anchor is the rule id.
RUN_CHECKS_DOC = "references/run-validation.md"
PREFLIGHT_DOC = "references/rules.md"


def quote(word: object) -> str:
    """One word of a printed command: redacted, then shell-quoted (render.inert)."""
    return shell_word(word)


@cache
def _rule_docs() -> dict[str, str]:
    from evalkit.checks.rules import RULES

    return {rule.id: rule.doc for rule in RULES}


def run_check_fix(rule_id: str) -> str | None:
    """The `## Fix` section of a run check's docstring, on one line."""
    doc = _rule_docs().get(rule_id)
    if doc is None or "## Fix" not in doc:
        return None
    body = doc.split("## Fix", 1)[1].split("\n## ", 1)[0]
    return " ".join(body.split()) or None


def run_check_see(rule_id: str) -> str:
    return f"{RUN_CHECKS_DOC}#{rule_id}"


def fix_line(rule_id: str) -> str:
    """`fix <id>: <what to change> (see <section>)` for a failed or warned run check."""
    fix = run_check_fix(rule_id) or "see the section"
    return f"fix {rule_id}: {fix} (see {run_check_see(rule_id)})"


def checked_line(ids: Iterable[str], what: str = "checks") -> str:
    unique = list(dict.fromkeys(ids))
    if not unique:
        return f"checked: no {what} applied"
    return f"checked ({len(unique)} {what}): {', '.join(unique)}"


def ending(
    checked: Sequence[str],
    next_steps: Sequence[str],
    already_ran: Sequence[str] = (),
) -> str:
    """The closing block, ending in a newline. CHECKED are whole lines (see
    checked_line); ALREADY_RAN names the evalkit commands this one ran on the way, so
    nobody runs them again; NEXT_STEPS are commands or one-line changes, in order. Each is
    printed on one line (render.inert.one_line): no value inside can start a line."""
    lines = ["", *(one_line(line) for line in checked)]
    if already_ran:
        ran = "; ".join(one_line(step) for step in already_ran)
        lines.append(f"already ran: {ran} (no need to run them again)")
    if next_steps:
        lines.append("next:")
        lines += [f"  {one_line(step)}" for step in next_steps]
    else:
        lines.append("next: nothing to do")
    return "\n".join(lines) + "\n"
