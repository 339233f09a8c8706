"""README.md stays a five-minute read: the two quick-start commands are the ones CI runs,
every relative link in it and in docs/ resolves, and it stays at most 20 KB (issue 51)."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
LIMIT = 20480
MAIN_JOB = (
    "scripts/evalkit preflight --template recipes/examples/gym/example_mrcr.yaml"
    " && scripts/evalkit compare tests/data/suite/baseline tests/data/suite/candidate"
)
TESTS = "bash tests/run.sh"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text outside fenced blocks: a link inside one is an example, not a link."""
    return "".join(
        part for i, part in enumerate(re.split(r"^```.*$", text, flags=re.M)) if i % 2 == 0
    )


def _quick_start_commands() -> list[str]:
    quick = README.read_text(encoding="utf-8").split("## Quick start", 1)[1]
    block = quick.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_is_at_most_20_kb():
    size = README.stat().st_size
    assert size <= LIMIT, f"README.md is {size} bytes, over {LIMIT}"


def test_the_quick_start_is_the_main_job_and_the_ci_command():
    assert _quick_start_commands() == [MAIN_JOB, TESTS]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf"^exec {re.escape(TESTS)}$", ci, re.M), (
        "`.ci/run` no longer runs the README's test command"
    )


def test_the_quick_start_is_on_the_first_screen():
    head = README.read_text(encoding="utf-8").splitlines()[:60]
    assert MAIN_JOB in head and TESTS in head


@pytest.mark.parametrize(
    "doc", [README, *sorted((REPO / "docs").glob("*.md"))], ids=lambda p: p.name
)
def test_every_relative_link_resolves(doc):
    broken = []
    for target in LINK.findall(_prose(doc.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (doc.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert not broken, f"{doc.name}: links that do not resolve: {broken}"


def _tables(text: str) -> list[list[str]]:
    """Each markdown table's body rows (header and rule dropped)."""
    tables, rows = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def test_every_figure_row_names_a_command():
    """The timings table: each row ends in the command that reproduces it (a code span);
    the agent-eval table's command is in the paragraph above it."""
    text = (REPO / "docs" / "figures.md").read_text(encoding="utf-8")
    tables = [t for t in _tables(text) if t]
    assert tables, "docs/figures.md has no table"
    timings = tables[0]
    source = [(r, r.strip().strip("|").rsplit("|", 1)[-1].strip()) for r in timings]
    # "same script" / "same as above" point at the row above's command.
    missing = [r[:80] for r, cell in source if "`" not in cell and not cell.startswith("same")]
    assert not missing, f"figure rows that name no command: {missing}"
