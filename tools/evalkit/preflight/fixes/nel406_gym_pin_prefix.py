"""NEL406: a short Gym pin that is a prefix of the known reference commit becomes the full SHA.

Changes `commit: a431501` to `commit: a431501aa294f3237d472aaf58dd1e5026156ea8` when the
short value (7 hex digits or more) starts the reference pin. Refuses anything else (a
branch, another commit, a pin that differs on purpose): only the user knows which
commit they meant.
"""

import re

from evalkit.benchmarks.mrcr.variants import GYM_PIN
from evalkit.preflight.fixes import fixer

KNOWN_PINS = (GYM_PIN,)
SHORT_SHA = re.compile(r"[0-9a-f]{7,39}")


@fixer("NEL406")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if not path or path[-1] != "commit" or not doc.has(path):
        return False
    short = str(doc.value(path)).strip().lower()
    if not SHORT_SHA.fullmatch(short):
        return False
    full = [pin for pin in KNOWN_PINS if pin.startswith(short)]
    if len(full) != 1:
        return False
    doc.set(path, full[0])
    return True
