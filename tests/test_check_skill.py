"""`evalkit check-skill`: golden fixture trees, one per rule, plus the CLI contract.

Each directory under tests/fixtures/skills/ is a small skill tree with an `expected.json`:
a list of the findings it must produce (exactly), each either a rule id or an object with
rule, file, line and optionally severity (default "error"). `[]` means clean.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evalkit.skillcheck import RULES, check_skill
from evalkit.skillcheck.paths import code_paths, expand_braces, link_path

FIXTURES = Path(__file__).parent / "fixtures" / "skills"
# A retired name, spelled in pieces so this file passes check-skill itself.
STALE = "gym" + "_mrcr"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())


def _expected(case: str) -> list:
    return json.loads((FIXTURES / case / "expected.json").read_text())


def _key(item) -> tuple:
    if isinstance(item, str):
        return (item,)
    return (item["rule"], item.get("severity", "error"), item["file"], item["line"])


def _actual_key(finding, like) -> tuple:
    if isinstance(like, str):
        return (finding.rule,)
    return (finding.rule, finding.severity, finding.file, finding.line)


@pytest.mark.parametrize("case", CASES)
def test_fixture_tree_gives_exactly_the_expected_findings(case):
    expected = _expected(case)
    findings = check_skill(FIXTURES / case)
    # Compare as multisets; string entries compare by rule id only.
    shape = expected[0] if expected else {}
    actual = Counter(_actual_key(f, shape) for f in findings)
    assert actual == Counter(_key(e) for e in expected), [f.to_json() for f in findings]


def test_every_rule_has_a_failing_fixture_and_there_is_a_clean_one():
    covered = {_key(e)[0] for case in CASES for e in _expected(case)}
    assert covered == {r.id for r in RULES}
    assert _expected("clean") == []


def test_rules_have_stable_unique_ids_and_documentation():
    ids = [r.id for r in RULES]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert ids == [f"SK{n:03d}" for n in range(1, len(ids) + 1)]
    for r in RULES:
        assert "Why:" in r.doc and "Fix:" in r.doc, r.id


def test_clean_tree_exits_0_and_says_so(run_cli):
    code, out, err = run_cli("check-skill", FIXTURES / "clean")
    assert (code, err) == (0, "")
    assert out.strip() == "no findings"


def test_warnings_alone_exit_0(run_cli):
    code, out, _ = run_cli("check-skill", FIXTURES / "sk003-name-mismatch")
    assert code == 0
    assert "warning SK003" in out


def test_errors_exit_1_with_file_line_and_fix(run_cli):
    code, out, _ = run_cli("check-skill", FIXTURES / "sk008-broken-link")
    assert code == 1
    assert "recipes/tasks/a.md" in out
    assert "  5: error SK008" in out
    assert "fix:" in out


def test_json_output_is_the_findings_document(run_cli):
    code, out, _ = run_cli("check-skill", FIXTURES / "sk011-stale-names", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"] == {"errors": 4, "warnings": 0}
    first = doc["findings"][0]
    assert set(first) == {"rule", "severity", "message", "path", "file", "line", "fix"}
    assert first["file"] == "SKILL.md" and first["line"] == 8


def test_default_dir_is_the_current_directory(run_cli, monkeypatch):
    monkeypatch.chdir(FIXTURES / "sk005-no-when")
    code, out, _ = run_cli("check-skill")
    assert code == 1 and "SK005" in out


@pytest.mark.parametrize("what", ["no-skill-md", "missing-dir", "a-file"])
def test_not_a_skill_directory_exits_2_with_one_line(run_cli, tmp_path, what):
    target = {"no-skill-md": tmp_path, "missing-dir": tmp_path / "nope"}.get(what)
    if what == "a-file":
        target = tmp_path / "SKILL.md"
        target.write_text("---\nname: x\n---\n")
    code, out, err = run_cli("check-skill", target)
    assert code == 2 and out == ""
    assert err.startswith("evalkit check-skill: error: ") and err.count("\n") == 1


def test_markdown_that_is_not_utf8_exits_2_naming_the_line(run_cli, tmp_path):
    skill = tmp_path / "x"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: x\ndescription: Use when x.\n---\n")
    (skill / "notes.md").write_bytes(b"ok\nbad \xff byte\n")
    code, _, err = run_cli("check-skill", skill)
    assert code == 2
    assert "notes.md:2: not valid UTF-8" in err


def test_binary_files_are_skipped_not_errors(run_cli, tmp_path):
    skill = tmp_path / "x"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: x\ndescription: Use when x.\n---\n")
    (skill / "logo.png").write_bytes(b"\x89PNG\x00\x00 " + STALE.encode())
    code, out, _ = run_cli("check-skill", skill)
    assert code == 0, out


def test_skipped_trees_are_not_checked(tmp_path):
    skill = tmp_path / "x"
    (skill / "tests" / "fixtures").mkdir(parents=True)
    (skill / ".venv").mkdir()
    (skill / "SKILL.md").write_text("---\nname: x\ndescription: Use when x.\n---\n")
    (skill / "tests" / "fixtures" / "old.md").write_text(f"[gone](nowhere.md) {STALE}\n")
    (skill / ".venv" / "x.md").write_text("[gone](nowhere.md)\n")
    assert check_skill(skill) == []


def test_rules_listing(run_cli):
    code, out, _ = run_cli("check-skill", "--rules")
    assert code == 0
    assert all(r.id in out for r in RULES)
    code, out, _ = run_cli("check-skill", "--rules", "--format", "json")
    assert [r["rule"] for r in json.loads(out)] == [r.id for r in RULES]


# --- path extraction -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "paths"),
    [
        ("references/{a,b}.md", ["references/a.md", "references/b.md"]),
        ("recipes/{x,y/{p,q}}.md", ["recipes/x.md", "recipes/y/p.md", "recipes/y/q.md"]),
        ("scripts/{a}.sh", ["scripts/{a}.sh"]),
    ],
)
def test_expand_braces(word, paths):
    assert expand_braces(word) == paths


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ("scripts/nel-gym.sh:12,", ["scripts/nel-gym.sh"]),
        ("see tools/evalkit/cli.py#L10.", ["tools/evalkit/cli.py"]),
        ("(references/gym.md)", ["references/gym.md"]),
        ("recipes/<task>.md recipes/*.yaml $ROOT/tools/x ~/scripts/y", []),
        ("mytests/a x/tests/b https://h/tools/c", []),
        ('"schemas/a.json" tests/', ["schemas/a.json", "tests/"]),
        ("bash ./scripts/a.sh ../scripts/b.sh", ["scripts/a.sh"]),
    ],
)
def test_code_paths(text, paths):
    roots = ("references", "recipes", "scripts", "tools", "tests", "schemas")
    assert [p for p, _ in code_paths(text, roots)] == paths


@pytest.mark.parametrize(
    ("target", "path"),
    [
        ("references/a.md#x", "references/a.md"),
        ("a%20b.md", "a b.md"),
        ("https://example.org/a.md", None),
        ("mailto:x@example.org", None),
        ("#anchor", None),
        ("/abs/path.md", None),
    ],
)
def test_link_path(target, path):
    result = link_path(target)
    assert (str(result) if result is not None else None) == path
