"""The text view of a validate document (checks.validate.report_document)."""

from __future__ import annotations

from typing import Any

from evalkit.render.endings import (
    checked_line,
    ending,
    fix_line,
    invocation_id_in,
    quote,
    run_check_see,
)

MARKS = {"pass": "[ok]  ", "warn": "[warn]", "fail": "[FAIL]"}


def report_text(doc: dict[str, Any], run: str | None = None) -> str:
    tasks = doc["tasks"]
    checks = iter(doc["checks"])
    pending = next(checks, None)
    lines: list[str] = []
    for task in tasks:
        lines.append(f"{task['task']} ({task['benchmark']})")
        # the document lists each task's checks together, in task order
        while pending is not None and (len(tasks) == 1 or pending["task"] == task["task"]):
            kind = f" -> {pending['kind']}" if pending.get("kind") else ""
            lines.append(
                f"  {MARKS[pending['status']]} {pending['id']}: {pending['message']}{kind}"
            )
            pending = next(checks, None)
        if len(tasks) > 1:
            lines.append(f"  task verdict: {task['verdict']}")
    lines.append(f"verdict: {doc['verdict']}")
    return "\n".join(lines) + "\n" + _ending(doc, run)


def _where(check: dict[str, Any]) -> str:
    return f"{check['task']}: " if "task" in check else ""


def _ending(doc: dict[str, Any], run: str | None) -> str:
    """What ran, and per failed check the change to make before validating again."""
    target = quote(run) if run else "RUN"
    failed = [c for c in doc["checks"] if c["status"] == "fail"]
    warned = [c["id"] for c in doc["checks"] if c["status"] == "warn"]
    steps = list(dict.fromkeys(_where(c) + fix_line(c["id"]) for c in failed))
    if any(c.get("kind") == "incomplete" for c in failed):
        # `nel resume ID` takes the invocation id (nemo-evaluator-launcher 0.2.6, cli/resume.py)
        inv = invocation_id_in(run) if run else None
        steps.append(f"nel resume {inv or '<invocation id>'}   (on the machine that ran `nel run`)")
    if failed:
        steps.append(f"then: evalkit validate {target}")
    else:
        steps += [
            f"read {rule_id} before quoting the score (see {run_check_see(rule_id)})"
            for rule_id in dict.fromkeys(warned)
        ]
        steps += [
            f"evalkit score {target}",
            f"evalkit compare BASELINE_RUN {target} --margin 1.0 (against its baseline)",
        ]
    return ending([checked_line(c["id"] for c in doc["checks"])], steps)
