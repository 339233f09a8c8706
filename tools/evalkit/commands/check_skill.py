"""`evalkit check-skill`: check this skill package (or any Agent Skill directory)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "check a skill directory: frontmatter, links, paths in code, code blocks, stale names"
DESCRIPTION = """\
Check an Agent Skill directory (default: the current one) against the Agent Skills spec
and this skill's own rules: SKILL.md frontmatter and length, every relative link and
every repo path named in code resolves, references stay one level deep, no retired names,
fenced yaml/bash/python/json blocks parse, and recipes/examples/*.yaml parse.
Every finding names the file and line; `--rules` lists the rule ids.

exit codes: 0 clean (warnings allowed); 1 any error; 2 no SKILL.md or unreadable input.
"""
EXAMPLES = """\
  evalkit check-skill
  evalkit check-skill path/to/skills/evaluation --format json
  evalkit check-skill --rules
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="skill directory (default: .)"
    )
    parser.add_argument(
        "--rules", action="store_true", help="list the rule ids with what each checks, and exit"
    )


def run(args: argparse.Namespace) -> int:
    from evalkit.findings import exit_code, findings_document
    from evalkit.report import findings_text, write_json
    from evalkit.skillcheck import RULES, check_skill

    if args.rules:
        if args.format == "json":
            write_json([{"rule": r.id, "name": r.name, "doc": r.doc} for r in RULES])
        else:
            for r in RULES:
                print(f"{r.id}  {r.name:<20} {r.summary}")
        return 0
    findings = check_skill(args.dir)
    if args.format == "json":
        write_json(findings_document(findings))
    else:
        sys.stdout.write(findings_text(findings))
    return exit_code(findings)
