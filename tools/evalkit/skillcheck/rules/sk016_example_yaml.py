"""Every YAML file under recipes/examples/ parses.

## What it does
Parses every `.yaml` and `.yml` file under recipes/examples/ (all documents) and reports
the line the parser names.

## Why is this bad
These are the configs users copy and launch; a file that does not parse fails at launch.

Severity: error, the config fails to load wherever it is used.

## Example
An example config whose list is never closed:
```text
tasks: [mmlu, gpqa
```

## Use instead
```yaml
tasks: [mmlu, gpqa]
```
"""

from collections.abc import Iterator
from pathlib import PurePosixPath

from evalkit.findings import Finding
from evalkit.skillcheck.helpers import finding, yaml_problem
from evalkit.skillcheck.model import SkillTree
from evalkit.skillcheck.registry import rule

EXAMPLES = PurePosixPath("recipes/examples")


@rule("SK016", "example-yaml", "error")
def check(tree: SkillTree) -> Iterator[Finding]:
    for text_file in tree.text_files:
        rel = text_file.rel
        if rel.suffix not in (".yaml", ".yml") or rel.parts[:2] != EXAMPLES.parts:
            continue
        problem = yaml_problem(text_file.text)
        if problem:
            yield finding(
                "SK016",
                "error",
                f"example config does not parse: {problem[0]}",
                rel,
                problem[1] + 1,
                "fix the YAML at this line",
            )
