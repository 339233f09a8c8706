"""`evalkit init`: a complete, sized config from a checkpoint and a few facts.

facts.py (what init asks) -> catalog.py (what it can write, templates) -> derive.py
(checkpoint + facts -> values with sources, through evalkit.sizing) -> render.py
(line-preserving fill of the shipped template) -> accept.py (preflight's rules and safe
fixes on the text, before it is written) -> baseline.py (the paired baseline).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evalkit.init.facts import Fact


@dataclass
class Result:
    task: str
    missing: list[Fact] = field(default_factory=list)
    configs: list = field(default_factory=list)  # render.Rendered
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    kind: str = ""
    defaulted: list[str] = field(default_factory=list)  # facts that took their default

    @property
    def ok(self) -> bool:
        return not self.missing and not self.problems


def build(task_name: str, given: dict, checkpoint_dir: str | None) -> Result:
    from evalkit.checkpoint import load_checkpoint
    from evalkit.errors import UsageError
    from evalkit.init import catalog, facts, render
    from evalkit.init.accept import accept

    root = catalog.skill_dir()
    tasks = catalog.tasks(root)
    task = tasks.get(task_name)
    if task is None:
        raise UsageError(f"unknown task {task_name!r}; `evalkit init --list` names them")
    require_checkpoint_dir(checkpoint_dir)
    result = Result(task=task.name, kind=task.kind)
    result.missing = facts.missing(task.kind, given, render.judged(task, root))
    if checkpoint_dir is None:
        result.missing.insert(0, CHECKPOINT_FACT)
    if result.missing:
        return result
    values, defaulted = facts.with_defaults(given)
    result.defaulted = defaulted
    for name in defaulted:
        if name == "walltime":
            result.warnings.append(
                'walltime defaulted to "04:00:00", a common cap rather than your cluster\'s: '
                "set fact walltime to the partition's limit"
            )
    context = values.get("context")
    ckpt = load_checkpoint(checkpoint_dir, documented_context=int(context) if context else None)
    for output in task.outputs:
        if task.kind == "aa" and output.role == "gdpval" and not values["thinking"]:
            result.warnings.append(
                "GDPVal left out of the AA set: it needs a reasoning model with thinking on"
            )
            continue
        rendered = render.render_output(task, output, values, defaulted, ckpt, root)
        accept(rendered, ckpt, int(context) if context else None)  # its own preflight
        result.configs.append(rendered)
        prefix = f"{output.file_name}: " if task.writes_directory else ""
        result.warnings += [prefix + w for w in rendered.warnings]
        result.problems += [prefix + p for p in rendered.problems]
    return result


def require_checkpoint_dir(checkpoint_dir: str | None) -> None:
    """A --checkpoint that is not a directory is said first and alone (exit 2): no list
    of missing facts would help before the path is right."""
    from pathlib import Path

    from evalkit.errors import InputError

    if checkpoint_dir is not None and not Path(checkpoint_dir).is_dir():
        raise InputError("checkpoint directory not found", checkpoint_dir)


CHECKPOINT_FACT = Fact(
    "checkpoint",
    "local-dir",  # a local directory, not a cluster fact: no kind check
    "local directory with the checkpoint's config.json, hf_quant_config.json and "
    "model.safetensors.index.json (pass it as --checkpoint DIR)",
    "./Model-FP8-meta",
)
