"""NEL104 (unsafe): `host:word` naming no variable becomes the literal `lit:word`.

A bare env value written before prefixes existed (`TOKENIZERS_PARALLELISM: 'false'`,
`NCCL_P2P_LEVEL: nvl`) is a name to nel-migrate-config, so the safe NEL101 fix writes
`host:false`, as the launcher's own migration does; the launcher then stops unless the
shell has a variable called `false`. When no variable of that name is set and the name
is a lower-case word (shell variables are upper case by convention), the only reading
under which the run starts is the literal, and this fix writes it, saying so. Unsafe: a
shell that sets the variable after all would have been read. Refuses upper-case names
(`host:HF_HOME`: export it), the lower-case proxy variables, and anything set here.
"""

import re

from evalkit.preflight.fixes import fixer

WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")
# Lower-case variables shells and tools do set.
KNOWN_LOWER = frozenset({"http_proxy", "https_proxy", "no_proxy", "ftp_proxy", "all_proxy"})


@fixer("NEL104", unsafe=True)
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if "env_vars" not in path or not doc.has(path):
        return False
    value = doc.value(path)
    if not isinstance(value, str) or not value.startswith("host:"):
        return False
    word = value[5:]
    if not WORD.fullmatch(word) or word in KNOWN_LOWER or word in ctx.env:
        return False
    doc.set(path, f"lit:{word}")
    return (
        f"{path[-1]}: host:{word} -> lit:{word}: no variable '{word}' is set and a "
        "lower-case word is a value, not a shell variable's name"
    )
