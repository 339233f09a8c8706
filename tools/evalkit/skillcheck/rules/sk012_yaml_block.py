"""Fenced `yaml`/`yml` blocks parse (all documents; a pasteable fragment must parse too).

## What it does
Parses every document of each fenced `yaml` or `yml` block with a safe YAML loader and
reports the line the parser names. A block that parses once its `...` elision lines are
removed is a sketch.

## Why is this bad
Agents paste these blocks into configs; a block that does not parse makes a config that
does not load.

Severity: error when the block does not parse, since whoever pastes it gets a config
that fails to load; warning for a sketch, which is readable but not pasteable as written.

## Example
```yaml
form:
  fields: [name, date
  output: filled.pdf
```

## Use instead
```yaml
form:
  fields: [name, date]
  output: filled.pdf
```
or mark a block that is not meant to parse as `text`.
"""

from collections.abc import Iterator

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding, without_elisions, yaml_problem
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

YAML_LANGUAGES = {"yaml", "yml"}


@rule("SK012", "yaml-block", "error|warning")
def check(tree: SkillTree) -> Iterator[Finding]:
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in YAML_LANGUAGES:
                continue
            problem = yaml_problem(fence.body)
            if problem and yaml_problem(without_elisions(fence.body)) is None:
                yield finding(
                    "SK012",
                    "warning",
                    "yaml block does not parse as written: it elides with `...`",
                    doc.rel,
                    fence.body_line + problem[1],
                    "write the full YAML, or mark the block `text`",
                )
            elif problem:
                yield finding(
                    "SK012",
                    "error",
                    f"yaml block does not parse: {problem[0]}",
                    doc.rel,
                    fence.body_line + problem[1],
                    "fix the YAML, or mark the block `text` if it is not YAML",
                )
