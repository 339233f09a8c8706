"""NEL101: an env value without a prefix gets the one nel-migrate-config gives it.

The launcher's own migration (nel-migrate-config, nemo-evaluator-launcher 0.2.6) reads a
bare value as it was meant before prefixes existed: a name (`HF_TOKEN`, `$HF_TOKEN`,
`EMPTY`, `fast`) was the host variable of that name and becomes `host:NAME`; a bare
`${oc.env:VAR}` becomes `host:VAR`; anything else (`5`, `/hf-cache`, `a b`) becomes
`lit:VALUE`, written as the file spells it (`true` -> `lit:true`, where the migration's
text match looks for `True` and leaves the line as it was). The rule's fix line says the
same.
Refuses, where the migration would write something: a credential-shaped value (it would
stay in the file: move it to your shell, see NEL103), a secret-named variable holding a
literal or a word that is neither an UPPER_CASE or `$` name nor a placeholder such as
`dummy` (`hf_abc`, `Passw0rd`: more likely the secret itself than a variable; the
migration writes `host:` + it), any other `${...}` (what it meant depends on what it resolves
to; `${oc.env:VAR,default}` would lose its default), text with surrounding spaces, and a
multi-line value. A value another key interpolates or aliases (`${evaluation.env_vars.N}`,
`*anchor`) is refused by the engine's proof: the prefix would reach that key too.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.rules.nel101_env_prefix import prefixed


@fixer("NEL101")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) < 2 or not doc.has(path):
        return False
    span = doc.doc.spans[path]
    if span.line != span.end_line:
        return False  # a block or multi-line value: not an env value to guess at
    value = doc.value(path)
    written = value if isinstance(value, str) else doc.text[span.start : span.end].strip("'\"")
    new = prefixed(str(path[-1]), value, written)
    if new is None:
        return False
    doc.set(path, new)
    return True
