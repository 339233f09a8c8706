"""NEL005: `execution.env_vars`, which 0.2.6 refuses, moves where 0.2.6 reads it.

Follows the launcher's own refusal message: variables meant for one job group go to that
group's map (`execution.env_vars.deployment` -> `deployment.env_vars`,
`execution.env_vars.evaluation` -> `evaluation.env_vars`, `execution.env_vars.export` ->
`export.env_vars`), and a flat map, meant for every job, goes to the top-level
`env_vars`. The values move as written (NEL101 then adds any
missing prefix) and the `execution.env_vars` block is removed. Refuses when a target map
already gives one of the names another value, when a target section is not in the file
or not a block mapping, and for the other rejected keys (`cluster:`,
`deployment.multiple_instances`, ...), whose right place depends on intent.
`evaluation.overrides` moves to `evaluation.nemo_evaluator_config` (overrides_move.py).
"""

from evalkit.config.textedit import yaml_scalar
from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import addable, block_mapping
from evalkit.preflight.fixes.overrides_move import move

SOURCE = ("execution", "env_vars")
# 0.1.x's job groups; 0.2.6 reads export.env_vars for the exporters
# (common/env_vars.py:433-437, collect_exporters_env_vars)
GROUPS = ("deployment", "evaluation", "export")


def _moves(value: dict) -> list[tuple[tuple, dict]] | None:
    """(target map path, entries) pairs; None when the shape is not one we know."""
    if set(value) <= set(GROUPS) and all(isinstance(v, dict) for v in value.values()):
        return [((group, "env_vars"), entries) for group, entries in value.items() if entries]
    if any(isinstance(v, (dict, list)) for v in value.values()):
        return None
    return [(("env_vars",), value)]


def _add_entries(doc, target: tuple, entries: dict) -> bool:
    existing = doc.value(target)
    if existing is not None and not isinstance(existing, dict):
        return False
    new = {k: v for k, v in entries.items() if not (existing and k in existing)}
    if existing and any(existing[k] != v for k, v in entries.items() if k in existing):
        return False
    if not new:
        return True
    if doc.has(target):
        if not addable(doc, target):
            return False
        for name, value in new.items():
            doc.add(target, name, value)
    elif len(target) == 1:  # a new top-level map, at the end of the file
        body = "\n".join(f"  {k}: {yaml_scalar(v)}" for k, v in new.items())
        doc.replace_text(doc.text.rstrip("\n") + f"\n{target[0]}:\n{body}\n")
    elif block_mapping(doc, target[:1]):
        doc.add(target[:1], target[-1], new)
    else:
        return False
    return True


@fixer("NEL005")
def fix(doc, hit, ctx):
    if tuple(hit.path) == ("evaluation", "overrides"):
        return move(doc, ("evaluation", "overrides"))
    if tuple(hit.path) != SOURCE or not doc.has(SOURCE) or not block_mapping(doc, SOURCE):
        return False
    if not block_mapping(doc, ("execution",)):
        return False
    moves = _moves(doc.value(SOURCE))
    if moves is None:
        return False
    doc.delete(SOURCE, with_comments=False)
    # on False the engine restores the text
    return all(_add_entries(doc, target, entries) for target, entries in moves)
