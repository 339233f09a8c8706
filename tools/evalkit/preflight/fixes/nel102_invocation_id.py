"""NEL102: `runtime:NEL_INVOCATION_ID` in the top-level `env_vars` moves to `evaluation.env_vars`.

The key leaves the top-level map (the map goes too when it is left empty) and is added to
`evaluation.env_vars`, created when absent. The evaluation job still sees the variable;
the export job no longer re-exports an id its shell never defined. Refuses when
`evaluation.env_vars` already maps the same name to another value, or when the file has
no `evaluation` section to move it into.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import addable, block_mapping

TARGET = ("evaluation", "env_vars")


@fixer("NEL102")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 2 or not doc.has(path) or not block_mapping(doc, ("env_vars",)):
        return False
    if not block_mapping(doc, ("evaluation",)):
        return False
    name, value = path[1], doc.value(path)
    doc.claim(TARGET + (name,))
    existing = doc.value(TARGET)
    if existing is not None and not isinstance(existing, dict):
        return False
    if isinstance(existing, dict) and name in existing:
        if existing[name] != value:
            return False
    elif doc.has(TARGET):
        if not addable(doc, TARGET):
            return False
        doc.add(TARGET, name, value)
    else:
        doc.add(("evaluation",), "env_vars", {name: value})
    doc.delete(path, with_comments=False)
    left = doc.value(("env_vars",))
    if not left:
        doc.delete(("env_vars",), with_comments=False)
    return True
