"""Move `# comments` out of a folded (`>`) scalar to comment lines above its key (shared by
the fixers of NEL306, shell commands, and NEL402, Gym parameter strings).

Each `#` word on a line of the scalar ends that line's text; the comment text goes, in
order, to comment lines just above the key, and a line that was only a comment is
removed. What follows the `#` on the same line, which bash never ran, is kept as comment
text too: the fix does not turn it on. Refused (False, the Doc untouched) for a scalar
that is not folded, a line where a quote comes before the `#` (it may be inside a quoted
string, not a comment), and a scalar that would be left empty.
"""

from __future__ import annotations

import re

HASH_WORD = re.compile(r"(^|\s)#")


def move_comments(doc, path) -> bool:
    path = tuple(path)
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
