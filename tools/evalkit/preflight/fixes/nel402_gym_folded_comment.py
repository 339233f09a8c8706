"""NEL402: a `# comment` inside a folded Gym parameter string moves above its key.

The same fix as NEL306's for a shell command, applied to `data_prep_params`,
`collect_rollout_params` and `common_params`: each `#` word on a line of the folded
(`>`) string ends that line's overrides, the comment text goes, in order, to comment
lines just above the key, and a line that was only a comment is removed. Overrides after
the `#` on the same line (`# canary ++limit=10`), which bash never passed to Gym, stay
comment text: the fix does not turn them on. Refuses a string that is not folded (a
literal `|` block or a quoted string), a line where a quote comes before the `#` (it may
be inside a quoted override, not a comment), and a string that would be left empty.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.folded import move_comments


@fixer("NEL402")
def fix(doc, hit, ctx):
    return move_comments(doc, hit.path)
