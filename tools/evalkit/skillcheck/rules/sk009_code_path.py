"""Every path named in code resolves: in the skill, the repository, or a sibling.

## What it does
Reads words in inline code spans and fenced blocks (any language) that start with one of
the skill's own top-level folders or the spec's scripts/, references/, assets/ (or `./`
and one of those). Trailing punctuation, `:line` suffixes and `#anchors` are dropped,
`{a,b}` lists are expanded, and words with `<...>` placeholders, globs (`*`, `?`) or `$`
variables are skipped. A path not in the skill is looked up in each folder from the
skill's parent up to the repository root (the nearest `.git`), then in the skill's
sibling folders, then under a folder named in another code span on the same line.

## Why is this bad
Agents copy commands and file names in code verbatim; a path that exists nowhere makes
the command fail.

Severity: error when the path exists nowhere, since the command fails wherever it runs;
info when it is found outside the skill, which is fine where the skill runs from this
repository.

## Example
```markdown
Run `scripts/fill_form.py input.pdf` to fill the form.
```
with no `fill_form.py` in the skill's scripts folder or anywhere around it.

## Use instead
Name the script that exists, relative to the skill root, or add it.
"""

import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import code_path_mentions, finding, normalize
from evalkit.skillcheck.model import MarkdownDoc, SkillTree
from evalkit.skillcheck.paths import find_elsewhere
from evalkit.skillcheck.registry import rule

_DIR_WORD = re.compile(r"^\.?/?[\w.-]+(?:/[\w.-]+)+/?$")


def _under_nearby_dir(tree: SkillTree, doc: MarkdownDoc, line: int, rel: PurePosixPath):
    """(label, path) when `rel` exists under a folder named in another code span on the
    same line, as in "`examples/x` (`scripts/run.sh`)"; else None."""
    for span in doc.code_spans:
        word = span.text.strip()
        if span.line != line or not _DIR_WORD.match(word):
            continue
        joined = normalize(PurePosixPath(word) / rel)
        if tree.inside(joined) and tree.exists(joined):
            return f"the folder `{word}` named on the same line", str(joined)
        found = find_elsewhere(tree.root, joined)
        if found:
            return f"the folder `{word}` named on the same line, in {found[0]}", found[1]
    return None


@rule("SK009", "code-path", "error|info")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for path, line in code_path_mentions(doc, tree.path_roots):
            rel = PurePosixPath(path)
            if tree.inside(rel) and tree.exists(rel):
                continue
            found = find_elsewhere(tree.root, normalize(rel)) if tree.inside(rel) else None
            found = found or _under_nearby_dir(tree, doc, line, rel)
            if found:
                yield finding(
                    "SK009",
                    "info",
                    f"path {path!r} is not in the skill; found in {found[0]} at {found[1]}",
                    doc.rel,
                    line,
                    "fine where the skill runs from this repository",
                )
            else:
                yield finding(
                    "SK009",
                    "error",
                    f"path {path!r} does not exist in the skill, the repository or a sibling",
                    doc.rel,
                    line,
                    "paths in code are relative to the skill root: fix it or add the file",
                )
