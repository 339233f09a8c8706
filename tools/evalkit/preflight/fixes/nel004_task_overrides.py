"""NEL004: a task's 0.1.x `overrides:` map becomes its `nemo_evaluator_config`.

Only this unknown key is fixed: the launcher 0.2.6 states the migration itself (each
dotted key nested under `nemo_evaluator_config`; common/helpers.py:98-125), so the
meaning is kept. Refuses every other unknown key (left to the user), a task that already
has a `nemo_evaluator_config`, list or mapping values and colliding keys
(overrides_move.py).
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.overrides_move import move


@fixer("NEL004")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 4 or path[:2] != ("evaluation", "tasks") or path[-1] != "overrides":
        return False
    return move(doc, path)
