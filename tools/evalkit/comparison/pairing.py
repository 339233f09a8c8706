"""Which task of one side meets which of the other, and which tasks a gate or reference
file's key names (issue 47): tasks pair by their label (the benchmark, or the launcher's
task name without its index), never by the launcher's index; a key may be any name a
user would use for the task, and one that names no task is refused.
"""

from __future__ import annotations

from typing import Any

from evalkit.comparison.sides import SuiteTask
from evalkit.errors import InputError
from evalkit.runs.layout import task_name


def label(task: SuiteTask) -> str:
    """What pairs a task across the sides, and how rows show it: the benchmark's label, or
    the launcher's task name without its index (never the index: the same task is `.1` in
    one invocation and `.0` in another)."""
    name, shown = task.view.name, task.benchmark
    if shown == name or shown.startswith(name + "/"):
        return task_name(name) + shown[len(name) :]
    return shown


def aliases(task: SuiteTask) -> set[str]:
    """Every name a gate or reference file may key this task by: evalkit's label, the
    launcher's task name (with or without its harness) and the directory without its index."""
    bare = task_name(task.view.name)
    names = {label(task), task.benchmark, bare, bare.split(".", 1)[-1]}
    headline = task.headline
    if headline is not None:
        names.add(headline.task)
    return {n for n in names if n}


def pair_sides(
    base: list[SuiteTask], cand: list[SuiteTask]
) -> tuple[dict[str, SuiteTask], dict[str, SuiteTask]]:
    """Both sides keyed by label, a partner found for each task that has one."""
    base_side, cand_side = _by_label(base), _by_label(cand)
    _pair_leftovers(base_side, cand_side)
    return base_side, cand_side


def _by_label(tasks: list[SuiteTask]) -> dict[str, SuiteTask]:
    out: dict[str, SuiteTask] = {}
    counts: dict[str, int] = {}
    for t in tasks:
        counts[label(t)] = counts.get(label(t), 0) + 1
    for t in tasks:
        key = label(t)
        out[key if counts[key] == 1 else f"{key} ({t.view.name})"] = t
    return out


def _pair_leftovers(base: dict[str, SuiteTask], cand: dict[str, SuiteTask]) -> None:
    """A task on each side that found no partner by label, and is the only one of its
    launcher task name on each side (its metric renamed, say), pairs under the baseline's
    label: the row then says what differs, instead of two 'only in' rows."""

    def by_name(side: dict[str, SuiteTask], keys: set[str]) -> dict[str, str]:
        names: dict[str, list[str]] = {}
        for key in keys:
            names.setdefault(task_name(side[key].view.name), []).append(key)
        return {name: found[0] for name, found in names.items() if len(found) == 1}

    only_base = by_name(base, base.keys() - cand.keys())
    only_cand = by_name(cand, cand.keys() - base.keys())
    for name in only_base.keys() & only_cand.keys():
        cand[only_base[name]] = cand.pop(only_cand[name])


def check_keys(keys: list[str], what: str, source: str | None, tasks: list[SuiteTask]) -> None:
    """A gate or reference key that names no task is a usage error: its margin or check
    would silently not apply."""
    known = set().union(*(aliases(t) for t in tasks)) if tasks else set()
    stray = [k for k in keys if k not in known]
    if stray:
        labels = ", ".join(sorted({label(t) for t in tasks}))
        raise InputError(
            f"{what} key(s) {', '.join(map(repr, stray))} match no task of either side "
            f"(tasks present: {labels}; a key may be evalkit's label, the launcher's task "
            "name or the task directory without its index)",
            source,
        )


def keyed(entries: dict[str, Any], task: SuiteTask) -> Any:
    names = aliases(task)
    hits = [entries[k] for k in entries if k in names]
    return hits[0] if hits else None


__all__ = ["aliases", "check_keys", "keyed", "label", "pair_sides"]
