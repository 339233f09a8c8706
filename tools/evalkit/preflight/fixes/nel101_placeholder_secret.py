"""NEL101 (unsafe): a placeholder under a secret name becomes `host:` that name.

`HF_TOKEN: hf_your_token` (the launcher's 0.1.x SLURM examples) is text to replace, not
a token. The safe fix leaves it (a secret-named value that is no variable name may be
the secret itself); this one reads a value whose words say it is a placeholder (`your`,
`xxx`, `changeme`, `replace`, `<...>`) as "the credential goes here", and writes
`host:HF_TOKEN`: the launcher reads the token from the shell at submit time, the only
place a credential belongs (NEL103). It prints what the user must do: export the
variable. Unsafe: the variable must then exist in the launching shell (NEL104 says when
it does not). Refuses any value that is not placeholder-shaped.
"""

import re

from evalkit.preflight.fixes import fixer
from evalkit.secrets import is_secret_name

PLACEHOLDER_WORDS = frozenset({"your", "xxx", "xxxx", "changeme", "replace", "replaceme"})
_WORDS = re.compile(r"[^A-Za-z0-9]+")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def placeholder(value: str) -> bool:
    text = value.strip()
    if text.startswith("<") and text.endswith(">"):
        return True
    words = {w.lower() for w in _WORDS.split(text) if w}
    return bool(words & PLACEHOLDER_WORDS)


@fixer("NEL101", unsafe=True)
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) < 2 or not doc.has(path):
        return False
    name, value = str(path[-1]), doc.value(path)
    if not isinstance(value, str) or not NAME.fullmatch(name) or not is_secret_name(name):
        return False
    if not placeholder(value):
        return False
    doc.set(path, f"host:{name}")
    return (
        f"{name}: a placeholder (value not shown) -> host:{name}: the launcher reads the "
        f"credential from your shell at submit time; export {name} before `nel run`"
    )
