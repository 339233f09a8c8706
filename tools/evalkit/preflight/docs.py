"""Generate references/rules.md from the rule docstrings.

    python -m evalkit.preflight.docs > references/rules.md

tests/preflight/test_docs.py fails when the checked-in file is stale.
"""

from __future__ import annotations

import sys

from evalkit.preflight.registry import all_rules

SCOPE_NOTE = {
    "config": "",
    "checkpoint": " Runs with `--checkpoint DIR`.",
    "pair": " Runs with `--pair BASE CAND`.",
    "launcher": " Runs with `--with-launcher`.",
}


def render() -> str:
    rules = all_rules()
    out = [
        "# Preflight rules",
        "",
        "Read this when `scripts/evalkit preflight` reports a rule code and you want the "
        "reason and the fix, or before writing a config by hand. Generated from the rule "
        "docstrings in `tools/evalkit/preflight/rules/` by "
        "`python -m evalkit.preflight.docs`; do not edit by hand.",
        "",
        "Severities: **error** fails preflight (exit 1): the launch would fail on the "
        "cluster or the score would be invalid or not comparable. **warning** is a strong "
        "recommendation (`--strict` fails on it too). **info** is reported only.",
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
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
