"""NEL306: a `# comment` inside a folded shell command moves above the command's key.

Each `#` word on a line of the folded (`>`) scalar ends that line's command text; the
comment text goes, in order, to comment lines just above the key, and a line that was
only a comment is removed. The flags after the `#` on the same line, which bash never
ran, are kept as comment text too: the fix does not turn them on. Refuses a line where a
quote comes before the `#` (it may be inside a quoted string, not a comment).
"""

import re

from evalkit.preflight.fixes import fixer

HASH_WORD = re.compile(r"(^|\s)#")


@fixer("NEL306")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    span = doc.doc.spans.get(path)
    if span is None or span.style != ">":
        return False
    first, last = doc.block_lines(path)
    lines = doc.lines
    comments, keep = [], []
    for index in range(first, last + 1):
        line = lines[index]
        match = HASH_WORD.search(line)
        if match is None:
            keep.append(line)
            continue
        head = line[: match.start()]
        if "'" in head or '"' in head:
            return False
        comments.append(line[match.end() :].strip())
        if head.strip():
            keep.append(head.rstrip())
    if not comments or not any(line.strip() for line in keep):
        return False
    doc.replace_text("\n".join(lines[:first] + keep + lines[last + 1 :]))
    for text in comments:
        if text:
            doc.comment_above(path, text)
    return True
