"""NEL202: an unquoted `H:MM:SS` walltime that YAML read as a base-60 integer is quoted.

Changes `walltime: 10:00:00` to `walltime: "10:00:00"` (the same duration, now a
string). Refuses a walltime that is a string in the wrong format: what was meant is not
certain.
"""

from evalkit.preflight.fixes import fixer


@fixer("NEL202")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    value = doc.value(path)
    if not doc.has(path) or not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return False
    hours, rest = divmod(value, 3600)
    doc.set(path, f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}")
    return True
