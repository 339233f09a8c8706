"""Doc.set brings its parse up to date without re-reading the text; a re-read must agree.

init and the fixer set hundreds of one-line values per run; each set used to re-parse the
whole text. Here every such update is compared with a fresh parse of the edited text:
same data, same spans (lines and offsets), same duplicate keys.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config import yamldoc
from evalkit.config.textedit import Doc
from helpers.tier import examples

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("recipes/**/*.yaml"), *ROOT.glob("tests/data/suite/configs/*.yaml")])
TEXTS = [p.read_text(encoding="utf-8") for p in SOURCES]
VALUES = st.one_of(
    st.sampled_from(
        ["", "x", "host:HF_TOKEN", "lit:5", "true", "1e3", "1:30", "a: b", "#x", "x #y",
         "'q'", '"d"', "é 😀", "null", "~", "[1]", "{a: 1}", "&a", "*a", "- x", "\\"]
    ),
    st.text(max_size=12),
)  # fmt: skip


def _one_line_scalars(doc: Doc) -> list[tuple]:
    parsed = doc.doc
    out = []
    for path, span in parsed.spans.items():
        value = doc.value(path)
        if path and span.line == span.end_line and not isinstance(value, (dict, list)):
            out.append(path)
    return out


def _fresh(text: str):
    yamldoc._PARSED.clear()
    return yamldoc.parse_document(text, "t.yaml", exact=False)


@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_every_update_is_what_a_re_read_gives(data):
    text = data.draw(st.sampled_from(TEXTS))
    doc = Doc(text, "t.yaml")
    for _ in range(data.draw(st.integers(1, 5))):
        paths = _one_line_scalars(doc)
        if not paths:
            return
        path = data.draw(st.sampled_from(paths))
        doc.set(path, data.draw(VALUES))  # a one-line scalar: no refusal is expected, none hidden
        updated = doc.doc
        fresh = _fresh(doc.text)
        assert updated.data == fresh.data
        assert updated.spans == fresh.spans
        assert updated.duplicates == fresh.duplicates


def test_a_merged_value_is_re_read_whole():
    doc = Doc("base: &b\n  x: one\nc:\n  <<: *b\n", "t.yaml")
    doc.set(("base", "x"), "two")
    assert doc.value(("c", "x")) == "two"  # the merge key reaches the same node


def test_the_earlier_parse_is_left_as_it_was():
    doc = Doc("env:\n  A: one\n  B: two\n", "t.yaml")
    earlier = doc.doc
    doc.set(("env", "A"), "host:A")
    assert earlier.data["env"]["A"] == "one" and doc.value(("env", "A")) == "host:A"
