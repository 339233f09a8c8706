"""The run checks are rules, one per module, each documenting itself; the section of
references/run-validation.md generated from them must not be stale."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

from evalkit.checks import rules
from evalkit.checks.docs import BEGIN, END, render, splice
from evalkit.checks.model import FAIL, INCOMPLETE, INVALID, WARN, Check
from evalkit.checks.rule import STATUS_ACTION, status_action
from evalkit.checks.rules import CHECK_IDS, RULES

SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Fix")


def test_run_validation_section_is_current(repo_root):
    path = repo_root / "references" / "run-validation.md"
    current = path.read_text(encoding="utf-8")
    assert splice(current, render()) == current, (
        "references/run-validation.md is stale: run `python -m evalkit.checks.docs --write`"
    )


@pytest.mark.entrypoint
def test_generator_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit.checks.docs"], capture_output=True, text=True, check=True
    )
    assert proc.stdout == render() and "| [`gym-pin`](#gym-pin) |" in proc.stdout


def test_splice_replaces_only_between_the_markers():
    text = f"before\n{BEGIN}\nold\n{END}\nafter\n"
    assert splice(text, "new\n") == f"before\n{BEGIN}\nnew\n{END}\nafter\n"


def test_every_rule_documents_itself_with_a_severity():
    for rule in RULES:
        for section in SECTIONS:
            assert section in rule.doc, f"{rule.id} lacks '{section}'"
        assert "Severity: " in rule.doc, rule.id
        assert rule.summary.endswith((".", ")")), rule.id


def test_one_rule_per_module_with_unique_ids():
    modules = [m.name for m in pkgutil.iter_modules(rules.__path__) if not m.name.startswith("_")]
    assert len(modules) == len(RULES) == len(set(CHECK_IDS))
    assert {m.replace("_", "-") for m in modules} == set(CHECK_IDS)


def test_status_action_table_covers_every_non_passing_result():
    assert status_action(Check("x", FAIL, "m", INVALID)) == "stop"
    assert status_action(Check("x", FAIL, "m", INCOMPLETE)) == "resume"
    assert status_action(Check("x", WARN, "m")) == "watch"
    assert len(STATUS_ACTION) == 3
