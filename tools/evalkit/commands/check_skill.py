"""`evalkit check-skill`: check this skill package (or any Agent Skill directory)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "check a skill directory: frontmatter, links, paths in code, code blocks"
DESCRIPTION = """\
Check an Agent Skill directory (default: the current one). Defaults follow the Agent
Skills spec and its reference validator: SKILL.md frontmatter, every relative link and
every path named in code resolves (in the skill, else the enclosing repository, else a
sibling folder; only a path found nowhere is an error), fenced yaml/bash/python/json
blocks parse, references stay one level deep, SKILL.md stays under 500 lines.

A repository adds its own conventions in a [tool.evalkit.check-skill] table of a
pyproject.toml (or a [check-skill] table of .evalkit.toml), found from DIR up to the
repository root: max-lines, require-when, retired-names, disable = [ids] and
severity = {SKnnn = "error"}. `--rules` shows which rules are on and where each setting
came from. `<!-- evalkit: disable=SK013 -->` on the line before a block turns those
rules off for that block. Every finding names the file and line.

exit codes: 0 clean (warnings and notes allowed); 1 any error; 2 no SKILL.md,
unreadable input or invalid settings.
"""
EXAMPLES = """\
  evalkit check-skill
  evalkit check-skill path/to/skills/evaluation --format json
  evalkit check-skill --rules path/to/skills/evaluation
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="skill directory (default: .)"
    )
    parser.add_argument(
        "--rules",
        action="store_true",
        help="list the rules for DIR: on or off, severity and each setting's source; exit",
    )


def run(args: argparse.Namespace) -> int:
    from evalkit.findings import exit_code, findings_document
    from evalkit.render.report import findings_text, write_json
    from evalkit.skillcheck import check_skill, settings_for

    settings = settings_for(args.dir)
    if args.rules:
        rows = rule_rows(settings)
        if args.format == "json":
            write_json(rows)
        else:
            sys.stdout.write(rules_text(rows, settings))
        return 0
    findings = check_skill(args.dir, settings)
    if args.format == "json":
        write_json(findings_document(findings))
    else:
        sys.stdout.write(findings_text(findings))
    return exit_code(findings)


def rule_rows(settings) -> list[dict]:
    """One entry per rule: whether it runs, its severity, the settings it reads."""
    from evalkit.skillcheck import RULES
    from evalkit.skillcheck.config import KEYS

    rows = []
    for r in RULES:
        override = settings.severity.get(r.id)
        rows.append(
            {
                "rule": r.id,
                "name": r.name,
                "enabled": r.enabled(settings),
                "enabled_source": settings.source("disable")
                if r.id in settings.disable
                else (settings.source(r.settings[0]) if r.switch else "always on"),
                "severity": override or r.levels,
                "severity_source": settings.source("severity") if override else "rule default",
                "settings": {
                    key: {
                        "value": _plain(getattr(settings, KEYS[key][0])),
                        "source": settings.source(key),
                    }
                    for key in r.settings
                },
                "doc": r.doc,
            }
        )
    return rows


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def rules_text(rows: list[dict], settings) -> str:
    where = settings.config_file or "none found (Agent Skills defaults)"
    lines = [f"settings: {where}"]
    for row in rows:
        state = "on " if row["enabled"] else "off"
        lines.append(
            f"{row['rule']}  {row['name']:<18} {state} {row['severity']:<20} "
            f"{row['doc'].splitlines()[0] if row['doc'] else ''}"
        )
        if row["severity_source"] != "rule default":
            lines.append(f"       severity from {row['severity_source']}")
        if row["enabled_source"] != "always on":
            lines.append(f"       {'off' if not row['enabled'] else 'on'}: {row['enabled_source']}")
        for key, item in row["settings"].items():
            lines.append(f"       {key} = {item['value']!r}  ({item['source']})")
    return "\n".join(lines) + "\n"
