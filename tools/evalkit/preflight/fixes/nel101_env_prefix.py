"""NEL101: an env value without a prefix gets `host:` or `lit:`.

A secret-named variable (`HF_TOKEN`, `*_API_KEY`, `*SECRET*`, ...) whose value names a
shell variable (`HF_TOKEN`, `$HF_TOKEN`: upper case) becomes `host:NAME`, read from your shell at
submit time, which is what the launcher's own message suggests. A value that is the
variable's own name becomes `host:` too. Any other value becomes `lit:VALUE`, written as
the file spelled it (`5` -> `lit:5`). Refuses a secret-named variable with a literal
value (the secret would stay in the file: move it to your shell by hand, see NEL103) and
any value that is an interpolation (`${...}`).
"""

import re

from evalkit.preflight.fixes import fixer
from evalkit.secrets import is_secret_name

# An upper-case name reads as a shell variable; `hf_abc...` is a token, not a name.
SHELL_VAR = re.compile(r"\$?([A-Z_][A-Z0-9_]*)")


@fixer("NEL101")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) < 2 or not doc.has(path):
        return False
    name = str(path[-1])
    span = doc.doc.spans[path]
    if span.line != span.end_line:
        return False  # a block or multi-line value: not an env value to guess at
    value = doc.value(path)
    if isinstance(value, (dict, list)) or value is None:
        return False
    if isinstance(value, str):
        if "${" in value or value != value.strip():
            return False
        written = value
    else:
        written = doc.text[span.start : span.end].strip("'\"")
    var = SHELL_VAR.fullmatch(written)
    if is_secret_name(name):  # whole words: TOKENIZERS_PARALLELISM is no secret
        if not var:
            return False
        new = f"host:{var.group(1)}"
    elif var and (written == name or written.startswith("$")):
        new = f"host:{var.group(1)}"
    else:
        new = f"lit:{written}"
    doc.set(path, new)
    return True
