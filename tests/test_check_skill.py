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
        # The why and the fix, in preflight's sections (tests/test_skillcheck_docs.py).
        assert "## Why is this bad" in r.doc and "## Use instead" in r.doc, r.id


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


# --- skills nobody here wrote (issue 18) ------------------------------------------------
# Small trees in the layouts of public skills, written for these tests: the monorepo
# plugin layout of NVIDIA Model-Optimizer (`.claude/skills/<name>/` beside a shared
# `common/` folder, naming files of the repository such as `tools/launcher/...`), and the
# standalone layout of anthropics/skills (SKILL.md, LICENSE.txt, scripts/, sibling .md
# files linked from SKILL.md). None carries a check-skill table, so defaults apply.

import subprocess  # noqa: E402
import sys  # noqa: E402

PTQ_SKILL = """\
---
name: quantize
description: Quantizes a Hugging Face checkpoint to FP8 or NVFP4 with the repository's
  launcher. Use it for post-training quantization requests.
---

# Quantize a checkpoint

Read `references/launcher-guide.md` first, then the shared
`references/slurm-setup.md` of the deployment skill.

```bash
python examples/llm_ptq/hf_ptq.py \\
    --pyt_ckpt_path <model> \\
    --qformat <format> \\
    --export_path <output>
```

```bash
cd tools/launcher && uv run launch.py --yaml <config.yaml> --yes
```

```bash
export MODEL=/models/base
python examples/llm_ptq/hf_ptq.py --pyt_ckpt_path "$MODEL"
```

Sync the shared files with `scripts/sync-shared.sh`.
{padding}
| Reference | When to read |
|---|---|
| `references/launcher-guide.md` | Launcher configs |
| `tools/launcher/CLAUDE.md` | Launcher internals |
"""
# 300 lines: over this repository's 200, under the specification's 500.
PTQ_FILES = {
    ".git/HEAD": "ref: refs/heads/main\n",
    "tools/launcher/CLAUDE.md": "# Launcher\n",
    "examples/llm_ptq/hf_ptq.py": "print('ptq')\n",
    ".claude/scripts/sync-shared.sh": "#!/bin/sh\necho sync\n",
    ".claude/skills/common/environment-setup.md": "# Environment\n",
    ".claude/skills/deployment/SKILL.md": "---\nname: deployment\ndescription: Deploys.\n---\n",
    ".claude/skills/deployment/references/slurm-setup.md": "# SLURM\n",
    ".claude/skills/quantize/SKILL.md": PTQ_SKILL.replace("{padding}", "\nStep.\n" * 130),
    ".claude/skills/quantize/references/launcher-guide.md": "# Launcher guide\n",
}

PDF_SKILL = """\
---
name: pdf-tools
description: Extracts text and tables from PDF files, fills PDF forms and merges documents.
license: Complete terms in LICENSE.txt
metadata:
  version: 2
---

# PDF tools

For forms, read [forms.md](forms.md). The API notes are in [reference.md](reference.md).

```python
from pypdf import PdfReader

reader = PdfReader("document.pdf")
print(len(reader.pages))
```

```bash
python scripts/check_fields.py <file.pdf>
```
"""
PDF_FILES = {
    "pdf-tools/SKILL.md": PDF_SKILL,
    "pdf-tools/LICENSE.txt": "Terms.\n",
    "pdf-tools/forms.md": "# Forms\n\nRun `scripts/check_fields.py` first.\n",
    "pdf-tools/reference.md": "# Reference\n",
    "pdf-tools/scripts/check_fields.py": "import sys\nprint(sys.argv)\n",
}


def _write(base: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return base


def _reference_validator(skill: Path) -> subprocess.CompletedProcess:
    tool = Path(sys.executable).parent / "agentskills"
    return subprocess.run([str(tool), "validate", str(skill)], capture_output=True, text=True)


def _by_severity(findings, severity):
    return sorted((f.rule, f.file, f.line) for f in findings if f.severity == severity)


def test_monorepo_plugin_skill_has_no_errors(tmp_path):
    skill = _write(tmp_path, PTQ_FILES) / ".claude" / "skills" / "quantize"
    assert _reference_validator(skill).returncode == 0
    findings = check_skill(skill)
    assert _by_severity(findings, "error") == []
    # Two blocks whose only fault is a <placeholder>: one warning each, with the fix.
    placeholder = [f for f in findings if f.rule == "SK013"]
    assert [(f.severity, f.line) for f in placeholder] == [("warning", 14), ("warning", 20)]
    assert "<model>, <format>, <output>" in placeholder[0].message
    assert "<config.yaml>" in placeholder[1].message  # parses, but as two redirections
    assert "$VAR" in placeholder[0].fix and "console" in placeholder[0].fix
    # Paths outside the skill are notes that say where they were found.
    notes = {f.message for f in findings if f.severity == "info"}
    assert notes == {
        "path 'references/slurm-setup.md' is not in the skill; found in sibling folder "
        "'deployment' at ../deployment/references/slurm-setup.md",
        "path 'scripts/sync-shared.sh' is not in the skill; found in a folder above the "
        "skill at ../../scripts/sync-shared.sh",
    }
    assert {f.rule for f in findings} == {"SK013", "SK009"}


def test_repository_paths_resolve_from_the_vcs_root(tmp_path):
    files = dict(PTQ_FILES)
    files[".claude/skills/quantize/references/launcher-guide.md"] = (
        "Configs live in `references/launcher/`; see `scripts/run.sh`.\n"
    )
    files["scripts/run.sh"] = "#!/bin/sh\n"
    files["references/launcher/a.yaml"] = "a: 1\n"
    skill = _write(tmp_path, files) / ".claude" / "skills" / "quantize"
    findings = [f for f in check_skill(skill) if f.rule == "SK009"]
    by_path = {f.message.split("'")[1]: f for f in findings}
    assert by_path["scripts/run.sh"].severity == "info"
    assert "found in the repository at ../../../scripts/run.sh" in by_path["scripts/run.sh"].message
    assert by_path["references/launcher/"].severity == "info"


def test_a_path_found_nowhere_is_an_error(tmp_path):
    files = dict(PTQ_FILES)
    files[".claude/skills/quantize/references/launcher-guide.md"] = "Run `scripts/gone.sh`.\n"
    skill = _write(tmp_path, files) / ".claude" / "skills" / "quantize"
    (error,) = [f for f in check_skill(skill) if f.severity == "error"]
    assert (error.rule, error.file, error.line) == ("SK009", "references/launcher-guide.md", 1)
    assert "does not exist in the skill, the repository or a sibling" in error.message


def test_standalone_skill_has_no_errors(tmp_path):
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    assert _reference_validator(skill).returncode == 0
    findings = check_skill(skill)
    # No "when" in the description is fine by default. The spec wants metadata values as
    # strings (the validator converts `2`): a warning, as is the placeholder block.
    assert sorted((f.rule, f.severity, f.line) for f in findings) == [
        ("SK006", "warning", 5),
        ("SK013", "warning", 21),
    ]


def test_real_shell_syntax_error_stays_an_error_next_to_placeholders(tmp_path):
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    text = PDF_SKILL.replace("<file.pdf>\n", '<file.pdf>\nif [ -f "$X" ]; then echo x\n')
    (skill / "SKILL.md").write_text(text)
    (finding,) = [f for f in check_skill(skill) if f.rule == "SK013"]
    assert finding.severity == "error"
    assert "unexpected end of file" in finding.message


@pytest.mark.parametrize(
    "body",
    [
        "a: " + "[" * 3000 + "]" * 3000 + "\n",  # flow nesting
        "".join("  " * i + f"k{i}:\n" for i in range(1500)) + "  " * 1500 + "v: 1\n",
        "ok: 1\n---\n" + "- " * 2000 + "x\n",  # a deep second document
    ],
    ids=["flow", "block", "second-document"],
)
def test_deeply_nested_yaml_block_is_one_finding_not_a_crash(tmp_path, body):
    # issue 25: safe_load_all recursed into a RecursionError out of check-skill
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    with (skill / "reference.md").open("a") as f:
        f.write("\n```yaml\n" + body + "```\n")
    (finding,) = [f for f in check_skill(skill) if f.rule == "SK012"]
    assert finding.severity == "error" and finding.file == "reference.md"
    assert "nested deeper than 100 levels" in finding.message
    assert 3 <= finding.line <= 3 + body.count("\n")


def test_disable_comment_turns_a_rule_off_for_the_next_block_only(tmp_path):
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    broken = "```bash\nif true; then echo x\n```\n"
    (skill / "forms.md").write_text(
        "# Forms\n\n<!-- evalkit: disable=SK013 -->\n" + broken + "\nAgain:\n\n" + broken
    )
    findings = [f for f in check_skill(skill) if f.file == "forms.md"]
    assert [(f.rule, f.severity, f.line) for f in findings] == [("SK013", "error", 11)]


HOUSE_TABLE = """\
[tool.evalkit.check-skill]
max-lines = 200
require-when = true
retired-names = ["old-forms.md"]
severity = { SK005 = "error", SK007 = "error", SK011 = "error" }
"""


def test_house_conventions_come_from_the_table(tmp_path):
    files = dict(PDF_FILES)
    files["pdf-tools/pyproject.toml"] = HOUSE_TABLE
    files["pdf-tools/reference.md"] = "# Reference\n\nFormerly old-forms.md.\n"
    files["pdf-tools/SKILL.md"] = PDF_SKILL + "\nline\n" * 200
    skill = _write(tmp_path, files) / "pdf-tools"
    errors = _by_severity(check_skill(skill), "error")
    assert errors == [
        ("SK005", "SKILL.md", 3),
        ("SK007", "SKILL.md", 201),
        ("SK011", "reference.md", 3),
    ]


def test_a_table_in_the_repository_root_applies_to_its_skills(tmp_path):
    files = dict(PTQ_FILES)
    files["pyproject.toml"] = '[tool.evalkit.check-skill]\nmax-lines = 200\ndisable = ["SK013"]\n'
    skill = _write(tmp_path, files) / ".claude" / "skills" / "quantize"
    rules = {f.rule: f.severity for f in check_skill(skill) if f.severity != "info"}
    assert rules == {"SK007": "warning"}


def test_rules_listing_says_what_is_on_and_where_each_setting_came_from(run_cli, tmp_path):
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    code, out, _ = run_cli("check-skill", "--rules", skill, "--format", "json")
    rows = {r["rule"]: r for r in json.loads(out)}
    assert code == 0
    assert rows["SK005"]["enabled"] is False and rows["SK011"]["enabled"] is False
    assert rows["SK007"]["settings"]["max-lines"] == {
        "value": 500,
        "source": "Agent Skills default",
    }
    (skill / ".evalkit.toml").write_text("[check-skill]\nrequire-when = true\nmax-lines = 120\n")
    code, out, _ = run_cli("check-skill", "--rules", skill)
    assert "settings: " in out and ".evalkit.toml" in out
    assert "max-lines = 120  (.evalkit.toml [check-skill])" in out
    assert "SK005  description-when   on " in out


def test_this_repository_keeps_its_stricter_settings(run_cli, repo_root):
    code, out, _ = run_cli("check-skill", "--rules", repo_root, "--format", "json")
    rows = {r["rule"]: r for r in json.loads(out)}
    assert rows["SK007"]["settings"]["max-lines"]["value"] == 200
    assert rows["SK007"]["severity"] == "error"
    assert rows["SK005"]["enabled"] and rows["SK011"]["enabled"]
    assert rows["SK011"]["settings"]["retired-names"]["source"].startswith("pyproject.toml")
    assert [f for f in check_skill(repo_root) if f.severity == "error"] == []


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("max-lines = 'x'", "'max-lines' must be an integer"),
        ("colour = 1", "unknown check-skill setting 'colour'"),
        ("disable = ['SK999']", "unknown rule id(s) SK999"),
        ("max-lines = ", "cannot read settings"),
    ],
)
def test_invalid_settings_exit_2_with_one_line(run_cli, tmp_path, table, message):
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    (skill / ".evalkit.toml").write_text(f"[check-skill]\n{table}\n")
    code, out, err = run_cli("check-skill", skill)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


SKETCHES = """\
# Sketches

```python
response = await client.messages.create(model="m", max_tokens=16)
```

```python
loader = make_loader(names=["a"], tokenizer=tok, ...)
def forward(self, x, ...):
    return x
```

```yaml
tasks:
  - name: <task>
    params:
      temperature: <value>
      ...
```

```json
"servers": {
  "search": {"command": "uvx", "args": ["search-server"]}
}
```

```json
{
  "total": 3,      // items in all pages
  "items": [...],
  "more": false
}
```

```json
{"type": "start", "id": "e1"}
{"type": "delta", "id": "e1"}
```

```python
def broken(:
    pass
```
"""


def test_elided_blocks_are_sketches_and_real_errors_stay_errors(tmp_path):
    """`...`, `//` notes, fragments, JSON Lines and top-level `await` are how public skills
    abbreviate examples; only the last block is broken code."""
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    (skill / "reference.md").write_text(SKETCHES)
    found = [(f.rule, f.severity, f.line) for f in check_skill(skill) if f.file == "reference.md"]
    assert sorted(found) == [
        ("SK012", "warning", 18),
        ("SK014", "error", 41),
        ("SK014", "warning", 8),
        ("SK015", "warning", 22),
        ("SK015", "warning", 29),
        ("SK015", "warning", 37),
    ]


def test_path_under_a_folder_named_on_the_same_line_is_a_note(tmp_path):
    files = dict(PTQ_FILES)
    files["examples/hf_ptq/scripts/convert.sh"] = "#!/bin/sh\n"
    files[".claude/skills/quantize/references/launcher-guide.md"] = (
        "Use `examples/hf_ptq` (`hf_ptq.py` / `scripts/convert.sh`).\n"
    )
    skill = _write(tmp_path, files) / ".claude" / "skills" / "quantize"
    (note,) = [f for f in check_skill(skill) if "convert.sh" in f.message]
    assert note.severity == "info"
    assert "the folder `examples/hf_ptq` named on the same line" in note.message


def test_a_skill_that_is_the_repository_looks_nowhere_else(tmp_path):
    """Folders beside a repository (other checkouts) are not part of it."""
    _write(tmp_path, {"other/scripts/run.sh": "#!/bin/sh\n", "other/SKILL.md": PDF_SKILL})
    skill = _write(tmp_path, PDF_FILES) / "pdf-tools"
    (skill / ".git").mkdir()
    (skill / "reference.md").write_text("Run `scripts/run.sh`.\n")
    (error,) = [f for f in check_skill(skill) if f.severity == "error"]
    assert error.rule == "SK009" and "'scripts/run.sh'" in error.message
