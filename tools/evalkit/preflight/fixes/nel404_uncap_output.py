"""NEL404: a capped MRCR answer is uncapped, as the reference run served it.

Sets a `max_new_tokens` the file writes (top level or the task's params) to `null`, and
in `collect_rollout_params` changes `responses_create_params.max_output_tokens=<n>` to
`=null`, or adds `++responses_create_params.max_output_tokens=null` when the override is
missing (a new line at the end of a folded `>` block, or at the end of a one-line
value). Refuses a `max_new_tokens` that is not a one-line scalar written in this file
(a bundled default or a `-o` override is edited elsewhere), a params block that is not
written in this file or is a literal `|` block (a new line there breaks the shell line
the Gym command puts it on), and an override written twice or in a form the fix cannot
edit word for word.
"""

import re

from evalkit.preflight.fixes import fixer

OVERRIDE = "responses_create_params.max_output_tokens"
ADDED = f"++{OVERRIDE}=null"
WRITTEN = re.compile(rf"""(?<![^\s'"])(\+{{0,2}}{re.escape(OVERRIDE)}=)([^\s'"]*)""")


def _uncap_param(doc, path) -> bool:
    span = doc.doc.spans.get(path)
    if span is None or span.line != span.end_line or span.style not in (None, '"', "'"):
        return False
    doc.set(path, None)
    return True


def _append(doc, path, span) -> bool:
    if span.style == ">":
        first, last = doc.block_lines(path)
        lines = doc.lines
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines.insert(last + 1, indent + ADDED)
        doc.replace_text("\n".join(lines))
        return True
    if span.style is None and span.line == span.end_line:
        doc.replace_text(f"{doc.text[: span.end]} {ADDED}{doc.text[span.end :]}")
        return True
    return False  # quoted or multi-line flow text: where a word goes is not certain


def _uncap_rollouts(doc, path) -> bool:
    span = doc.doc.spans.get(path)
    if span is None or not isinstance(doc.value(path), str) or span.style == "|":
        return False
    inside = doc.text[span.start : span.end]
    found = list(WRITTEN.finditer(inside))
    if not found:
        return _append(doc, path, span)
    if len(found) > 1:
        return False  # written twice: which one was meant is not certain
    match = found[0]
    start, end = span.start + match.start(2), span.start + match.end(2)
    doc.replace_text(doc.text[:start] + "null" + doc.text[end:])
    return True


@fixer("NEL404")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if path[-1] == "max_new_tokens":
        return _uncap_param(doc, path)
    return _uncap_rollouts(doc, path)  # the rule's other hit: collect_rollout_params
