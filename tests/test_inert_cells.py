"""Issue 52: run data in a Markdown table stays in its own cell, as its own text.

tests/hostile/test_inert.py compares tag names, which a forged cell does not change: a
benchmark named `gpqa | -5.0 | 99.0` without its `|` escaped adds two cells of numbers to
the release note's row and no tag. Here the note is parsed as Markdown (markdown-it-py,
CommonMark with GFM tables, as GitHub renders it) and every cell's text is compared with
the value evalkit was given.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from evalkit.render.inert import has_unsafe, inert_data, md_code, md_fence, md_text, one_line

SUITE = Path(__file__).resolve().parent / "data" / "suite"
FORGED = "gpqa | -5.0 | 99.0"
# Values that each would be markup, a cell break or a block if printed raw.
HOSTILE = [
    FORGED,
    "a|b",
    "a\\|b",  # a backslash before the bar: unescaped, the backslash would eat the escape
    "x\\",
    "<b>bold</b> & <img src=x>",
    "*em* _u_ **strong** ~~gone~~",
    "[link](https://example.org) ![i](x.png)",
    "`code` ``two``",
    "a`b",
    "`x",
    "# heading",
    "- item",
    "+ item",
    "= setext",
    "1. item",
    "7) item",
    "---",
    "  - indented item",
    "&amp; &#124; &lt;",
    "line\nnext: curl x | sh",
    "\x1b[2J\u202eevil",
    "",
]


def _parse(text: str):
    return MarkdownIt("commonmark").enable("table").parse(text)


OWN_BOLD = ("strong_open", "strong_close")  # the note's own: a verdict is bold


def _text(inline) -> str:
    """What a reader sees of an inline token: its text and code spans, no markup (but the
    bold evalkit puts around a whole verdict)."""
    children = [c for c in inline.children if c.type != "text" or c.content]
    if [c.type for c in children[:1] + children[-1:]] == list(OWN_BOLD):
        children = children[1:-1]
    kinds = {c.type for c in children}
    assert kinds <= {"text", "code_inline"}, kinds  # no link, image, emphasis, html
    return "".join(c.content for c in children)


def _rows(text: str, table: int = 0) -> list[list[str]]:
    """The rows of the TABLEth table, each the list of its cells' text."""
    rows, row, cell, seen = [], None, False, -1
    for token in _parse(text):
        seen += token.type == "table_open"
        if seen != table:
            continue
        if token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            rows.append(row)
        elif token.type in ("th_open", "td_open"):
            cell = True
        elif token.type in ("th_close", "td_close"):
            cell = False
        elif token.type == "inline" and cell:
            row.append(_text(token))
    return rows


@pytest.mark.parametrize("value", HOSTILE)
def test_a_value_in_a_cell_reads_back_as_itself(value):
    table = f"| a | b | c |\n|---|---|---|\n| {md_text(value)} | {md_code(value)} | end |\n"
    shown = one_line(value)
    # a blank code span keeps the spaces md_code pads it with (CommonMark strips none then)
    code = shown if shown.strip() else f" {shown} "
    assert _rows(table)[1] == [shown.strip(), code, "end"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_value_as_a_paragraph_is_one_paragraph_of_its_text(value):
    tokens = _parse(f"{md_text(value)}\n")
    if not one_line(value).strip():
        assert tokens == []
        return
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    assert _text(tokens[1]) == one_line(value).strip()


def test_a_code_span_outside_a_table_keeps_its_bar():
    (_, inline, _) = _parse(md_code("a|b", cell=False) + "\n")
    assert [(c.type, c.content) for c in inline.children] == [("code_inline", "a|b")]


@pytest.mark.parametrize("body", ["plain", "```\nnot the end\n```", "````", "a\n`x`"])
def test_a_fence_holds_its_body_whole(body):
    (block,) = _parse(md_fence(body, info="text"))
    assert (block.type, block.info, block.content) == ("fence", "text", body + "\n")


@pytest.fixture(scope="module")
def report_doc():
    """The bundled pair's report document (tests/data/suite, `evalkit report --format json`)."""
    from evalkit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["report", str(SUITE / "baseline"), str(SUITE / "candidate"),
                     "--bootstrap", "200", "--format", "json"])  # fmt: skip
    assert code in (0, 1)
    return json.loads(out.getvalue())


def test_a_forged_benchmark_name_writes_no_number_into_the_release_note(report_doc):
    from evalkit.render.release_report import SUITE_HEADERS, render_markdown

    doc = json.loads(json.dumps(report_doc))
    for row in doc["tasks"]:
        row["benchmark"] = FORGED
        row["task"] = "task | 1 | 2"
    rows = _rows(render_markdown(doc))
    head, body = rows[0], rows[1:]
    assert head == SUITE_HEADERS
    assert len(body) == len(doc["tasks"]) > 0
    for row, task in zip(body, doc["tasks"], strict=True):
        assert len(row) == len(SUITE_HEADERS), row
        assert row[:2] == ["task | 1 | 2", FORGED]
        assert row[-1] == one_line(task["verdict"])


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\nb", "a\\nb"),  # a named escape
        ("\x01", "\\x01"),  # C0, two hex digits
        ("\x85", "\\x85"),  # C1, still under U+0100
        ("\u202e", "\\u202e"),  # a bidi override: four hex digits
        ("\u2028", "\\u2028"),
        ("\u0100\u00ff", "\u0100\u00ff"),  # printable on both sides of U+0100: kept
    ],
)
def test_one_line_shows_each_control_as_its_escape(raw, shown):
    assert one_line(raw) == shown
    assert has_unsafe(raw) is (raw != shown)
    assert has_unsafe(shown) is False


def test_inert_data_reaches_every_string_and_keeps_the_rest():
    doc = {"k\n": ["a\x1b", ("b\r", 1)], "n": None, "t": True, "f": 1.5}
    assert inert_data(doc) == {"k\\n": ["a\\x1b", ("b\\r", 1)], "n": None, "t": True, "f": 1.5}


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # GitHub links these by itself (GFM autolink extension); CommonMark alone does not,
        # so the escape is asserted as written. An escaped character reads the same.
        ("see https://example.org/x", "see https\\://example.org/x"),
        ("www.example.org", "www\\.example.org"),
        ("WWW.example.org and www.x.y", "WWW\\.example.org and www\\.x.y"),
        ("awww.example.org", "awww.example.org"),  # not at a word start: no link
    ],
)
def test_autolinks_are_broken_by_an_escape(raw, shown):
    assert md_text(raw) == shown


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # between two letters or digits a `_` is no emphasis: kept, so names stay legible
        ("gpqa_diamond", "gpqa_diamond"),
        ("x a_b", "x a_b"),
        ("a__b 9_9 é_x", "a__b 9_9 é_x"),
        # at either end of the value, or beside anything else: escaped, the whole run
        ("_ab", "\\_ab"),
        ("ab_", "ab\\_"),
        ("a_", "a\\_"),
        ("__init__", "\\_\\_init\\_\\_"),
        ("__a_b", "\\_\\_a_b"),  # a run at the start is escaped whole, whatever ends the text
        ("a _b_ c", "a \\_b\\_ c"),
        ("a_-b", "a\\_-b"),
    ],
)
def test_an_underscore_run_is_escaped_unless_it_is_inside_a_word(raw, shown):
    assert md_text(raw) == shown


def test_a_code_span_uses_the_shortest_fence_that_holds_it():
    assert md_code("x") == "`x`"
    assert md_code("a`b") == "``a`b``"
    assert md_fence("x") == "```text\nx\n```"
