"""NEL010 (unsafe): the two local-executor refusals whose repair 0.2.6's own code decides.

- `execution.mode: parallel` beside a deployment becomes `sequential`: the local
  executor refuses the pair and names that mode itself ("Execution mode 'parallel' is not
  supported with deployment type: vllm. Use 'sequential' instead.",
  nemo-evaluator-launcher 0.2.6 executors/local/executor.py:116-121). Unsafe: the tasks
  then run one after the other, not side by side.
- A first task with no env var in any group gets one harmless variable,
  `evaluation.env_vars.NEL026_LOCAL_ENV_WORKAROUND: lit:1`, with a comment saying why. It
  is a workaround for a 0.2.6 bug, not a setting: the local executor binds
  `export_reexport_cmd` only inside `if env_groups:` (executors/local/executor.py:235)
  and reads it for every task (line 270), so a run whose first task has no env var stops
  with `UnboundLocalError`. No program reads the variable; the launcher writes it to the
  task's `.secrets.env` and exports it into the evaluation container. Unsafe: it adds a
  key the file did not write (delete it when the launcher is fixed).

Refuses when `execution.mode` is not written in the file (set by a sibling defaults file
or `-o`), or when `evaluation` is not a block mapping or already has env vars.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import addable, block_mapping

MODE = ("execution", "mode")
ENV = ("evaluation", "env_vars")
WORKAROUND = "NEL026_LOCAL_ENV_WORKAROUND"
# Where 0.2.6 binds and reads the name (checked against the installed launcher by
# tests/preflight/test_history_fixes.py).
SOURCE = "nemo-evaluator-launcher 0.2.6 executors/local/executor.py:235,270"
PARALLEL_SOURCE = "nemo-evaluator-launcher 0.2.6 executors/local/executor.py:116-121"


def _sequential(doc, ctx) -> str | bool:
    if not doc.has(MODE) or doc.value(MODE) != "parallel":
        return False
    doc.set(MODE, "sequential")
    return (
        f"execution.mode: parallel -> sequential: the local executor refuses 'parallel' with "
        f"deployment type {ctx.cfg.deployment_type} and names 'sequential' ({PARALLEL_SOURCE}); "
        "the tasks now run one after another"
    )


def _env_workaround(doc) -> str | bool:
    if not block_mapping(doc, ("evaluation",)):
        return False
    comment = f"workaround: nel 0.2.6's local executor needs an env var ({SOURCE})"
    if doc.has(ENV):
        if doc.value(ENV) or not addable(doc, ENV):
            return False
        doc.add(ENV, WORKAROUND, "lit:1", comment=comment)
    else:
        doc.add(("evaluation",), "env_vars", {WORKAROUND: "lit:1"}, comment=comment)
    doc.claim(ENV + (WORKAROUND,))
    return (
        f"added evaluation.env_vars.{WORKAROUND}: lit:1, a variable no program reads: a "
        "workaround for the 0.2.6 local executor, which stops with UnboundLocalError "
        f"('export_reexport_cmd') when the first task has no env var ({SOURCE}); "
        "delete it once the launcher is fixed"
    )


@fixer("NEL010", unsafe=True)
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if ctx.cfg.execution_type != "local":
        return False
    if path == MODE and "parallel" in hit.message:
        return _sequential(doc, ctx)
    if path[:2] == ("evaluation", "tasks") and "export_reexport_cmd" in hit.message:
        return _env_workaround(doc)
    return False
