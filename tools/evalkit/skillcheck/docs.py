"""Generate docs/skill-rules.md from the check-skill rule docstrings.

    python -m evalkit.skillcheck.docs > docs/skill-rules.md

tests/test_skillcheck_docs.py fails when the checked-in file is stale.
"""

from __future__ import annotations

import sys

from evalkit.skillcheck.config import Settings
from evalkit.skillcheck.registry import Rule
from evalkit.skillcheck.rules import RULES

# The sections whose code blocks show an imaginary skill: its paths exist nowhere, and
# an Example breaks its own rule on purpose, so this page must not be flagged for them.
EXAMPLE_SECTIONS = ("### Example", "### Use instead")

CONTRACT = [
    "- **error**: the skill breaks for an agent: the spec's validator refuses it, a link "
    "or a path in code exists nowhere, or a code block does not parse as written. "
    "check-skill exits 1.",
    "- **warning**: it breaks only some copies or readers, is a sketch rather than "
    "pasteable code, or departs from a house convention. Exit 0.",
    "- **info**: notes, e.g. a path that resolves in this repository but not in a copy of "
    "the skill alone. Never fails.",
    "",
    "A rule may choose its severity per case; its section says how. A repository sets its "
    "house conventions in a `[tool.evalkit.check-skill]` table of `pyproject.toml` (or a "
    "`[check-skill]` table of `.evalkit.toml`): `max-lines`, `require-when`, "
    '`retired-names`, `disable = ["SKnnn"]` and `severity = { SKnnn = "error" }`, which '
    "moves errors and warnings but never notes. `<!-- evalkit: disable=SK013 -->` on the "
    "line before a block turns those rules off for that block. "
    "`evalkit check-skill --rules DIR` shows what is on for DIR and where each setting "
    "came from.",
]


def _state(rule: Rule) -> str:
    if rule.enabled(Settings()):
        return "on"
    return f"off unless `{rule.settings[0]}` is set" if rule.settings else "off"


def _body(rule: Rule) -> list[str]:
    """The docstring after its summary, headings one level down, example blocks marked."""
    rest = rule.doc.split("\n", 1)[1].strip() if "\n" in rule.doc else ""
    marker = f"<!-- evalkit: disable={','.join(dict.fromkeys([rule.id, 'SK009']))} -->"
    out: list[str] = []
    section, in_fence = "", False
    for line in rest.splitlines():
        if line.startswith("## "):
            line = "#" + line
            section = line
        if line.startswith("```"):
            if not in_fence and section in EXAMPLE_SECTIONS:
                out += ["", marker] if out and out[-1] else [marker]
            in_fence = not in_fence
        out.append(line)
    return out


def render() -> str:
    out = [
        "# check-skill rules",
        "",
        "Read this when `evalkit check-skill` reports an SK code and you want the reason "
        "and the fix, or before writing a skill by hand. Generated from the rule "
        "docstrings in `tools/evalkit/skillcheck/rules/` by "
        "`python -m evalkit.skillcheck.docs`; do not edit by hand.",
        "",
        "## Severity contract",
        "",
        *CONTRACT,
        "",
        "| Code | Name | Severity | By default | Summary |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES:
        summary = rule.summary.replace("|", "\\|")
        levels = rule.levels.replace("|", ", ")
        out.append(
            f"| [{rule.id}](#{rule.id.lower()}) | {rule.name} | {levels} | {_state(rule)} "
            f"| {summary} |"
        )
    for rule in RULES:
        reads = f" Reads `{'`, `'.join(rule.settings)}`." if rule.settings else ""
        out += [
            "",
            f"## {rule.id}",
            "",
            f"`{rule.name}` · {rule.levels.replace('|', ', ')} · {_state(rule)}.{reads} "
            f"{rule.summary}",
            "",
            *_body(rule),
        ]
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
