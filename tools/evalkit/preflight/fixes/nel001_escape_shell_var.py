r"""NEL001: a shell variable written `${NAME}` in a command is escaped as `\${NAME}`.

Only for an UPPER_CASE name (config keys are lower case, so the text is a shell
variable, not a mistyped reference) that OmegaConf reports as a missing key, or as an
unsupported resolver when bash's `${NAME:-default}` form is used, inside a `command` or
`pre_cmd` string. OmegaConf reads `\${` as a literal `${`, so the shell gets exactly the
text you wrote. Every unescaped occurrence of that one name in the value is escaped.
Refuses a lower-case or dotted name (a reference to a key that does not exist: which
key was meant is not certain), a double-quoted YAML string (where `\$` is not a valid
escape), and an occurrence right after `$` or `\` (`$${NAME}`, `\\${NAME}`: an attempt
at another escape whose meaning is not certain).
"""

import re

from evalkit.preflight.fixes import fixer

KEYS = ("command", "pre_cmd")
NAMED = re.compile(r"Interpolation key '([A-Z_][A-Z0-9_]*)' not found")
RESOLVER = re.compile(r"Unsupported interpolation type ([A-Z_][A-Z0-9_]*)\b")


def _name(message: str) -> str | None:
    match = NAMED.search(message) or RESOLVER.search(message)
    return match.group(1) if match else None


@fixer("NEL001")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    name = _name(hit.message)
    if name is None or not path or path[-1] not in KEYS:
        return False
    span = doc.doc.spans.get(path)
    if span is None or span.style == '"' or not isinstance(doc.value(path), str):
        return False
    inside = doc.text[span.start : span.end]
    token = re.compile(rf"(?<![\\$])\$\{{{name}(?=[}}:])")
    if re.search(rf"[\\$]\$\{{{name}(?=[}}:])", inside) or not token.search(inside):
        return False
    fixed = token.sub(lambda m: "\\" + m.group(0), inside)
    doc.replace_text(doc.text[: span.start] + fixed + doc.text[span.end :])
    return True
