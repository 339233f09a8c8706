"""The text view of a validate document (checks.validate.report_document)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.checks.failures.model import RESUME
from evalkit.render.endings import checked_line, ending, fix_line, quote, run_check_see
from evalkit.render.inert import inert_data
from evalkit.render.triage import triage_lines, triage_steps

MARKS = {"pass": "[ok]  ", "warn": "[warn]", "fail": "[FAIL]"}


def report_text(
    doc: dict[str, Any], run: str | None = None, triages: Mapping[str, Any] | None = None
) -> str:
    """TRIAGES: task name -> why that incomplete task ended (checks/failures), if named."""
    triages = triages or {}
    raw, doc = doc, inert_data(doc)  # the view prints run data on one line each
    tasks = doc["tasks"]
    checks = iter(doc["checks"])
    pending = next(checks, None)
    lines: list[str] = []
    for task, name in zip(tasks, (t["task"] for t in raw["tasks"]), strict=True):
        lines.append(f"{task['task']} ({task['benchmark']})")
        # the document lists each task's checks together, in task order
        while pending is not None and (len(tasks) == 1 or pending["task"] == task["task"]):
            kind = f" -> {pending['kind']}" if pending.get("kind") else ""
            lines.append(
                f"  {MARKS[pending['status']]} {pending['id']}: {pending['message']}{kind}"
            )
            pending = next(checks, None)
        lines += triage_lines(triages.get(name))  # keyed by the name as the run spells it
        if len(tasks) > 1:
            lines.append(f"  task verdict: {task['verdict']}")
    lines.append(f"verdict: {doc['verdict']}")
    return "\n".join(lines) + "\n" + _ending(raw, run, triages)


def _where(check: dict[str, Any]) -> str:
    return f"{check['task']}: " if "task" in check else ""


def _ending(doc: dict[str, Any], run: str | None, triages: Mapping[str, Any]) -> str:
    """What ran, and per failed check the change to make before validating again. An
    incomplete task whose logs say why it ended gets that cause's steps instead of the
    resume advice (a relaunch, or a resume only where the cause is a resume event)."""
    target = quote(run) if run else "RUN"
    failed = [c for c in doc["checks"] if c["status"] == "fail"]
    warned = [c["id"] for c in doc["checks"] if c["status"] == "warn"]
    names = [t["task"] for t in doc["tasks"]]

    def explained(check: dict[str, Any]) -> bool:
        return check.get("kind") == "incomplete" and check.get("task", names[0]) in triages

    ended = [triages[n] for n in names if n in triages]
    steps = triage_steps(ended, named=len(names) > 1)
    steps += list(dict.fromkeys(_where(c) + fix_line(c["id"]) for c in failed if not explained(c)))
    incomplete = [c for c in failed if c.get("kind") == "incomplete" and not explained(c)]
    if incomplete:
        steps += _resume(run, {c.get("task") for c in incomplete})
    if failed:
        # a resume writes into this run; a relaunch makes a new run directory
        relaunched = any(t.cause.rule.next != RESUME for t in ended)
        note = "   (a relaunched task: the run directory its relaunch writes)" if relaunched else ""
        steps.append(f"then: evalkit validate {target}{note}")
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


def _resume(run: str | None, names: set[str | None]) -> list[str]:
    """`nel resume ID` takes only an invocation id and resubmits every job of it
    (nemo-evaluator-launcher 0.2.6, cli/resume.py): named when the whole invocation was
    examined and every task is incomplete; else each incomplete task's job alone, as the
    launcher resubmits one job (status/cancel.py)."""
    from evalkit.runs.invocation import invocation_id
    from evalkit.runs.layout import names_one_task, resolve_task_runs
    from evalkit.status.cancel import INVOCATION_PLACEHOLDER, RESUME_FILES, resubmit_dir

    if not run:
        return [f"nel resume {INVOCATION_PLACEHOLDER}   (on the machine that ran `nel run`)"]
    tasks = resolve_task_runs(run)
    chosen = tasks if None in names else [t for t in tasks if t.name in names]
    ids = {invocation_id(t.task_dir) for t in tasks}
    if not names_one_task(run) and len(chosen) == len(tasks) and len(ids) == 1:
        inv = next(iter(ids)) or INVOCATION_PLACEHOLDER
        return [f"nel resume {inv}   (on the machine that ran `nel run`; every job of it)"]
    return [
        f"(cd {quote(resubmit_dir(t.task_dir))} && rm -f {RESUME_FILES} && sbatch run.sub)   "
        f"(on the cluster: resubmits {t.name}'s job alone, as `nel resume` does per job)"
        for t in chosen
    ]
