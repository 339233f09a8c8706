"""No text file uses a retired name (house convention, `retired-names`).

## What it does
Off while the `retired-names` list of the check-skill table is empty, as it is by
default. Scans every text file of the skill for the listed names, matched as whole
tokens (a longer identifier that contains one is fine). The file that lists the names is
not scanned.

## Why is this bad
The old files are gone: an agent that follows an old name finds nothing, or an outdated
copy somewhere else.

Severity: warning, it is a house convention; a repository that renames often raises it
with `severity = { SK011 = "error" }`.

## Example
With `retired-names = ["fill-forms.sh"]`, a reference that still says
"run fill-forms.sh on the file".

## Use instead
The current name of the script, or no mention at all.
"""

import re
from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule


@rule("SK011", "retired-name", "warning", ("retired-names",), lambda s: bool(s.retired_names))
def check(tree: SkillTree) -> Iterator[Finding]:
    names = tree.settings.retired_names
    pattern = re.compile(
        r"(?<![A-Za-z0-9_-])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_-])"
    )
    listing = tree.settings.config_file
    for text_file in tree.text_files:
        if listing is not None and (tree.root / text_file.rel).resolve() == listing.resolve():
            continue
        if pattern.search(text_file.text) is None:
            continue
        for number, line in enumerate(text_file.text.splitlines(), start=1):
            for match in pattern.finditer(line):
                yield finding(
                    "SK011",
                    "warning",
                    f"retired name {match.group(1)!r}",
                    text_file.rel,
                    number,
                    "use the current file or folder name",
                )
