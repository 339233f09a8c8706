"""NEL306: a `# comment` inside a folded shell command moves above the command's key.

Each `#` word on a line of the folded (`>`) scalar ends that line's command text; the
comment text goes, in order, to comment lines just above the key, and a line that was
only a comment is removed. The flags after the `#` on the same line, which bash never
ran, are kept as comment text too: the fix does not turn them on. Refuses a line where a
quote comes before the `#` (it may be inside a quoted string, not a comment).
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.folded import move_comments


@fixer("NEL306")
def fix(doc, hit, ctx):
    return move_comments(doc, hit.path)
