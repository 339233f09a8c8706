"""NEL009 (unsafe): a bare task name gets the harness the launcher 0.1.x resolved it to.

A config written for the launcher 0.1.x that says `ifeval` ran the one task of that name
its launcher knew; 0.2.6 knows several and stops. The 0.1.x task registries are data
(tools/evalkit/data/nel-0.1-task-resolutions.yaml, read from the 0.1.x wheels by
tools/dev/gen_task_history.py): when every sampled 0.1.x release that resolved the name
chose the same harness, the name becomes that harness's task, and the fix says which
releases it followed. Unsafe: the file does not say it was written for 0.1.x, and a user
who meant another candidate gets a different benchmark's scoring. Runs after the safe
fixer (which follows the file's own harnesses). Refuses names the 0.1.x line never
resolved (`mmlu_pro` was ambiguous there too), and any name with a container.
"""

from functools import lru_cache
from pathlib import Path

import yaml

from evalkit.config.tasks import refusal
from evalkit.preflight.fixes import fixer

RESOURCE = "nel-0.1-task-resolutions.yaml"


@lru_cache(maxsize=1)
def era_resolutions() -> dict[str, dict]:
    text = (Path(__file__).resolve().parents[2] / "data" / RESOURCE).read_text("utf-8")
    return yaml.safe_load(text)["names"]


def _span(versions: list[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


@fixer("NEL009", unsafe=True)
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 4 or path[-1] != "name" or not doc.has(path):
        return False
    name = doc.value(path)
    task = ctx.cfg.get(path[:-1])
    if not isinstance(name, str) or "." in name or not isinstance(task, dict):
        return False
    if task.get("container"):
        return False
    found = refusal(name, None)
    era = era_resolutions().get(name)
    if found is None or era is None or era["qualified"] not in found.choices:
        return False
    doc.set(path, era["qualified"])
    others = ", ".join(c for c in found.choices if c != era["qualified"])
    return (
        f"{name} -> {era['qualified']}: the harness the launcher releases "
        f"{_span(era['versions'])} (sampled) resolved the bare name to "
        f"(their task registries); 0.2.6 also has {others}"
    )
