"""NEL009 (unsafe): a bare task name 0.2.6 refuses is resolved through older launchers'
task registries, or through what the config says about its endpoint.

- Several 0.2.6 harnesses have the name: the harness the launcher 0.1.x resolved it to
  (tools/evalkit/data/nel-0.1-task-resolutions.yaml: every sampled 0.1.x release that
  resolved the name chose the same harness), unless that task does not serve the
  endpoint type the config states (the task's `endpoint_type`, or the target URL's
  `/chat/completions` or `/completions` with `deployment: none`); then, or when 0.1.x
  never resolved it (`mmlu_pro`), the one candidate that serves that type.
- No 0.2.6 harness has it (`mbpp`, `aa_scicode`): the names older registries listed
  (tools/evalkit/data/nel-task-history.yaml). The 0.2.6 task of the same harness running
  the same container task for the stated endpoint type (`mbpp` with a chat URL ->
  `bigcode-evaluation-harness.mbpp-chat`); else the image the last release that listed
  it ran it in becomes the task's `container` (0.2.6 accepts a task with an explicit
  container and reads its definition from that image).
Each fix says what it chose and why. Unsafe: the file does not say which launcher it was
written for, and another candidate scores differently. Refuses, leaving the candidates in
the finding, whenever the config's facts decide nothing; and any task with a container.
"""

from functools import lru_cache
from pathlib import Path

import yaml

from evalkit.config.task_history import endpoint_type, endpoint_types, gone, span
from evalkit.config.tasks import refusal
from evalkit.preflight.fixes import fixer

RESOURCE = "nel-0.1-task-resolutions.yaml"


@lru_cache(maxsize=1)
def era_resolutions() -> dict[str, dict]:
    text = (Path(__file__).resolve().parents[2] / "data" / RESOURCE).read_text("utf-8")
    return yaml.safe_load(text)["names"]


def _ambiguous(doc, path, name, choices, kind, source):
    era = era_resolutions().get(name)
    types = endpoint_types(name)
    if (
        era
        and era["qualified"] in choices
        and (kind is None or kind in types.get(era["qualified"], [kind]))
    ):
        doc.set(path, era["qualified"])
        others = ", ".join(c for c in choices if c != era["qualified"])
        return (
            f"{name} -> {era['qualified']}: the harness the launcher releases "
            f"{span(era['versions'])} (sampled) resolved the bare name to it "
            f"(their task registries); 0.2.6 also has {others}"
        )
    fits = [c for c in choices if kind and kind in types.get(c, [])]
    if len(fits) != 1:
        return False
    doc.set(path, fits[0])
    return (
        f"{name} -> {fits[0]}: {source} says the endpoint is {kind}, and of 0.2.6's "
        f"candidates {list(choices)} only {fits[0]} serves {kind} (its task registry)"
    )


def _add_container(doc, path, image) -> bool:
    """`container: image` on the line after the task's one-line `name:`."""
    span_ = doc.doc.spans[path]
    lines = doc.lines
    index = (span_.key_line or span_.line) - 1
    line = lines[index]
    at = line.find("name:")
    if span_.line != span_.end_line or at < 0 or line[:at].strip() not in ("", "-"):
        return False
    lines.insert(index + 1, " " * at + f"container: {image}")
    doc.replace_text("\n".join(lines))
    return True


def _gone(doc, path, name, kind, source):
    harnesses = gone(name)
    if not harnesses or len(harnesses) != 1:
        return False
    ((harness, seen),) = harnesses.items()
    listed = f"releases {span(seen['versions'])} listed it under {harness}"
    successors = seen.get("successors") or {}
    fits = successors.get(kind, []) if kind else []
    if len(fits) == 1:
        doc.set(path, fits[0])
        return (
            f"{name} -> {fits[0]}: 0.2.6 has no task '{name}' ({listed}); {fits[0]} is 0.2.6's "
            f"task of that harness running the same container task for {kind} endpoints "
            f"({source} says {kind})"
        )
    image = seen.get("container")
    if not image or not _add_container(doc, path, image):
        return False
    doc.claim(path[:-1] + ("container",))
    choice = "; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(successors.items()))
    return (
        f"{name}: container {image}: 0.2.6 has no task '{name}' ({listed}, the last of "
        "them in this image); with the container named, 0.2.6 reads the task from it"
        + (f". 0.2.6's own successors, by endpoint type: {choice}" if choice else "")
    )


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
    if found is None:
        return False
    kind, source = endpoint_type(ctx.cfg, task)
    if len(found.choices) > 1 and "multiple tasks" in found.message:
        return _ambiguous(doc, path, name, found.choices, kind, source)
    if "not found" in found.message:
        return _gone(doc, path, name, kind, source)
    return False
