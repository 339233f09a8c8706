"""The failure rules document themselves: references/failures.md's catalogue is
generated from them and must not be stale; every rule names its source, and has a test
built from its real message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evalkit.checks.failures.docs import BEGIN, END, render, splice
from evalkit.checks.failures.model import NONE, RELAUNCH, RESUME
from evalkit.checks.failures.rules import BY_ID, RULES

TESTS = Path(__file__).resolve().parent


def test_failures_reference_is_current(repo_root):
    path = repo_root / "references" / "failures.md"
    current = path.read_text(encoding="utf-8")
    assert splice(current, render()) == current, (
        "references/failures.md is stale: run `python -m evalkit.checks.failures.docs --write`"
    )


def test_generator_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "evalkit.checks.failures.docs"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert proc.stdout == render() and "### vllm-kv-cache-too-small" in proc.stdout


def test_splice_replaces_only_between_the_markers():
    text = f"before\n{BEGIN}\nold\n{END}\nafter\n"
    assert splice(text, "new\n") == f"before\n{BEGIN}\nnew\n{END}\nafter\n"


def test_every_rule_has_what_why_fix_and_a_source():
    for rule in RULES:
        for section in ("## What it does", "## Why is this bad", "## Fix"):
            assert section in rule.doc, f"{rule.id}: no {section!r}"
        assert rule.source.package and rule.source.file, rule.id
        assert rule.needle and rule.logs and rule.next in (RESUME, RELAUNCH, NONE), rule.id


def test_every_rule_is_exercised_by_a_test():
    names = ("test_failures.py", "test_failures_slurm.py", "helpers/failure_logs.py")
    text = "".join((TESTS / name).read_text(encoding="utf-8") for name in names)
    # the corpus cases (tests/test_failures_corpus.py) name theirs as `expect: ID`
    corpus = "".join(p.read_text() for p in (TESTS / "data/failures_corpus").glob("*.yaml"))
    missing = [
        rule_id
        for rule_id in BY_ID
        if f'"{rule_id}"' not in text and f"expect: {rule_id}\n" not in corpus
    ]
    assert not missing, f"no test names these failure rules: {missing}"
