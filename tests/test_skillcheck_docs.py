"""docs/skill-rules.md is generated from the check-skill rule docstrings and must not be
stale; every rule documents itself the way preflight's rules do; one rule per module."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.skillcheck import RULES, check_skill
from evalkit.skillcheck import rules as rules_package
from evalkit.skillcheck.docs import render

SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Use instead")
PACKAGE = Path(rules_package.__file__).parent


def test_skill_rules_md_is_current(repo_root):
    current = (repo_root / "docs" / "skill-rules.md").read_text(encoding="utf-8")
    assert current == render(), (
        "docs/skill-rules.md is stale: run "
        "`python -m evalkit.skillcheck.docs > docs/skill-rules.md`"
    )


@pytest.mark.entrypoint
def test_generator_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit.skillcheck.docs"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.startswith("# check-skill rules\n\nRead this when")
    for r in RULES:
        assert f"\n## {r.id}\n" in proc.stdout


def test_every_rule_documents_what_why_severity_example_and_fix():
    for r in RULES:
        for section in SECTIONS:
            assert section in r.doc, f"{r.id} lacks '{section}'"
        why = r.doc.split("## Why is this bad", 1)[1].split("## Example", 1)[0]
        assert "Severity:" in why, f"{r.id} does not say why its severity"
        for level in r.levels.split("|"):
            assert level in why, f"{r.id} reports {level} but its severity reasoning omits it"
        assert r.summary.endswith("."), r.id


def test_one_rule_per_module_named_after_its_code():
    modules = [m.name for m in pkgutil.iter_modules([str(PACKAGE)])]
    assert len(modules) == len(RULES)
    for r in RULES:
        (module,) = [m for m in modules if m.split("_", 1)[0] == r.id.lower()]
        assert module == f"{r.id.lower()}_{r.name.replace('-', '_')}"
        assert r.check.__module__ == f"{rules_package.__name__}.{module}"


def _evalkit_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("evalkit")}


def test_rules_import_downward_only():
    """A rule module imports the registry, model, helpers, paths and findings, never
    another rule, the package's entry point or a command; nothing below imports rules."""
    allowed = {
        "evalkit.findings",
        "evalkit.skillcheck.helpers",
        "evalkit.skillcheck.model",
        "evalkit.skillcheck.paths",
        "evalkit.skillcheck.registry",
    }
    for path in sorted(PACKAGE.glob("sk*.py")):
        imported = _evalkit_imports(path)
        assert imported <= allowed, (path.name, imported - allowed)
    for below in ("registry", "helpers", "model", "config", "paths", "loader"):
        imported = _evalkit_imports(PACKAGE.parent / f"{below}.py")
        upward = {m for m in imported if m.startswith("evalkit.skillcheck.rules")}
        assert not upward and "evalkit.skillcheck" not in imported, (below, imported)


def test_the_generated_page_passes_check_skill(repo_root):
    """Its examples break their rules on purpose; the page marks them, so the repository's
    own check stays clean."""
    findings = [f for f in check_skill(repo_root) if f.file == "docs/skill-rules.md"]
    assert [f for f in findings if f.severity != "info"] == [], [f.to_json() for f in findings]
