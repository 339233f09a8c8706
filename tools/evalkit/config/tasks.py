"""Task-name look-up as nel 0.2.6 does it before submission, against its task catalog.

Mirrors `get_task_definition_for_job` (nemo_evaluator_launcher/common/mapping.py):
- with an explicit `container`, any name with at most one dot is accepted (the launcher
  falls back to a minimal, unlisted task definition);
- without one, `task` must name exactly one catalog task, `harness.task` must be a catalog
  pair or name a harness that has a default container (then it runs unlisted);
- anything else stops the launch ("there are multiple tasks named ...", "Task ... not
  found", "Harness ... not found").
The catalog is data generated from the installed launcher (tests/preflight/
make_task_catalog.py), so no launcher import is needed here.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from evalkit.inputs import read_text

CATALOG_RESOURCE = "nel-0.2.6-tasks.yaml"


@dataclass(frozen=True)
class Catalog:
    harnesses: dict[str, bool]  # harness -> has a default container
    pairs: frozenset[tuple[str, str]]  # (harness, task)

    def by_task(self, task: str) -> list[str]:
        return sorted(f"{h}.{t}" for h, t in self.pairs if t == task)


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    text = read_text(Path(__file__).resolve().parents[1] / "data" / CATALOG_RESOURCE)
    raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["harnesses"]
    return Catalog(
        harnesses={name: bool(entry["container"]) for name, entry in raw.items()},
        pairs=frozenset((name, task) for name, entry in raw.items() for task in entry["tasks"]),
    )


@dataclass(frozen=True)
class Refusal:
    message: str  # the launcher's own wording, shortened
    choices: tuple[str, ...] = ()  # qualified names to pick from


def refusal(name: str, container: str | None) -> Refusal | None:
    """Why nel 0.2.6 would refuse this task name (None when it accepts it)."""
    cat = catalog()
    dots = name.count(".")
    if dots > 1:
        return Refusal(f"task name {name!r} has more than one '.'; use 'task' or 'harness.task'")
    if container:
        return None
    if dots == 0:
        matches = cat.by_task(name)
        if len(matches) == 1:
            return None
        if matches:
            return Refusal(
                f"there are multiple tasks named {name!r}; the launcher stops and asks "
                f"to select one of {matches}",
                tuple(matches),
            )
        return Refusal(
            f"Task {name!r} not found in the 0.2.6 catalog (use <harness>.<task> or "
            "give an explicit container)",
            tuple(_close(name, {t for _, t in cat.pairs})),
        )
    harness, task = name.split(".")
    if (harness, task) in cat.pairs or cat.harnesses.get(harness):
        return None  # a catalog task, or an unlisted task of a known harness
    close = _close(harness, set(cat.harnesses))
    return Refusal(
        f"Harness {harness!r} not found in the 0.2.6 catalog; use a known harness or "
        "give an explicit container",
        tuple(f"{h}.{task}" for h in close),
    )


def _close(word: str, pool: set[str]) -> list[str]:
    return difflib.get_close_matches(word, sorted(pool), n=3, cutoff=0.75)
