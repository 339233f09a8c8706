"""NEL004: a task's 0.1.x `overrides:` map becomes its `nemo_evaluator_config`; a task's
`config:` (the older name of that key) is renamed to it.

Only these unknown keys are fixed, each by a reading the launcher itself states:
- `overrides`: 0.2.6 spells out the migration (each dotted key nested under
  `nemo_evaluator_config`; common/helpers.py:98-125). Refuses a task that already has a
  `nemo_evaluator_config`, list or mapping values and colliding keys (overrides_move.py).
- `config`: the launcher 0.2.3 read a task's `config` as its `nemo_evaluator_config`
  when the task had none (nemo-evaluator-launcher 0.2.3 common/helpers.py:141-143,
  `user_task_config.get("nemo_evaluator_config") or user_task_config.get("config", {})`);
  0.2.6 refuses the key. Refuses a task that has both (0.2.3 used only the other one).
Every other unknown key (a task-level `target`, which 0.2.3 and 0.2.5 did not read
either) is left to you.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.overrides_move import move

NEW = "nemo_evaluator_config"


@fixer("NEL004")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 4 or path[:2] != ("evaluation", "tasks"):
        return False
    if path[-1] == "overrides":
        return move(doc, path)
    if path[-1] != "config" or not doc.has(path) or doc.has(path[:-1] + (NEW,)):
        return False
    if not isinstance(doc.value(path), dict):
        return False
    doc.rename_key(path, NEW)
    doc.claim(path[:-1] + (NEW,))
    return True
