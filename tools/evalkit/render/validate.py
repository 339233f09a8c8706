"""The text view of a validate document (checks.validate.report_document)."""

from __future__ import annotations

from typing import Any

MARKS = {"pass": "[ok]  ", "warn": "[warn]", "fail": "[FAIL]"}


def report_text(doc: dict[str, Any]) -> str:
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
    return "\n".join(lines) + "\n"
