"""Generate references/rules.md from the rule docstrings.

    python -m evalkit.preflight.docs > references/rules.md

tests/preflight/test_docs.py fails when the checked-in file is stale.
"""

from __future__ import annotations

import sys

from evalkit.preflight.fixes import all_fixers, unsafe_fixers
from evalkit.preflight.registry import all_rules

SCOPE_NOTE = {
    "config": "",
    "checkpoint": " Runs with `--checkpoint DIR`.",
    "context": " Runs with `--checkpoint DIR` or `--context N`.",
    "pair": " Runs with `--pair BASE CAND`.",
    "launcher": " Runs with `--with-launcher`.",
    "other-schema": " Runs instead of every other rule on a file of another schema.",
}


# The promise every rule's severity keeps; each rule's doc says which case applies.
CONTRACT = [
    "- **error**: the launcher refuses the config, or the job fails on every cluster, or "
    "the score would be wrong or not comparable. Preflight exits 1.",
    "- **warning**: it fails on some clusters or environments, wastes GPUs or hours, or is "
    "probably unintended. Exit 1 only with `--fail-on warning` (`--strict`).",
    "- **info**: blanks and notes (`???` under `--template`). Never fails.",
    "",
    "A rule may choose its severity per case (NEL004, NEL204, NEL301 do); its section says "
    "how. A config that `nel run --dry-run` accepts gets no error unless a rule proves a "
    "defect the launcher does not check (tests/preflight/test_differential.py lists them). "
    "Silence a finding with `# evalkit: disable=CODE` at the end of its line, or on its own "
    "line before the first key for the whole file, or with `--ignore CODE`; suppressed "
    "findings are still counted in the summary.",
]


def render() -> str:
    rules = all_rules()
    fixers, unsafe = all_fixers(), unsafe_fixers()
    out = [
        "# Preflight rules",
        "",
        "Read this when `scripts/evalkit preflight` reports a rule code and you want the "
        "reason and the fix, or before writing a config by hand. Generated from the rule "
        "docstrings in `tools/evalkit/preflight/rules/` by "
        "`python -m evalkit.preflight.docs`; do not edit by hand.",
        "",
        "## Severity contract",
        "",
        *CONTRACT,
        "",
        "| Code | Name | Severity | Summary |",
        "|---|---|---|---|",
    ]
    for rule in rules.values():
        summary = rule.summary.replace("|", "\\|")
        out.append(
            f"| [{rule.code}](#{rule.code.lower()}) | {rule.name} | {rule.severity} | {summary} |"
        )
    for rule in rules.values():
        parts = rule.doc.strip().split("\n\n", 1)
        rest = parts[1].strip() if len(parts) > 1 else ""
        rest = rest.replace("\n## ", "\n### ")
        if rest.startswith("## "):
            rest = "#" + rest
        out += [
            "",
            f"## {rule.code}",
            "",
            f"`{rule.name}` · {rule.severity}.{SCOPE_NOTE[rule.scope]} {rule.summary}",
            "",
            rest,
        ]
        if rule.code in fixers:
            what = fixers[rule.code].doc.removeprefix(f"{rule.code}: ")
            out += ["", f"**Fix available** (`preflight --fix`): {what}"]
        if rule.code in unsafe:
            what = unsafe[rule.code].doc.removeprefix(f"{rule.code} (unsafe): ")
            out += ["", f"**Unsafe fix** (`preflight --fix --unsafe-fixes`): {what}"]
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
