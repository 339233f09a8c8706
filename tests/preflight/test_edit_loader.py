"""The edit loader (libyaml under the launcher's composer) against the launcher's own loader.

init and the fixer re-read their text after every edit with `parse_document(exact=False)`;
these tests hold it to the exact loader (omegaconf 2.3's pure-Python SafeLoader, the one
nel 0.2.6 reads configs with): wherever both read a text they give the same data and
spans, and wherever the exact loader refuses a text the edit read gives its refusal too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config.textedit import Doc
from evalkit.config.yamldoc import edit_loader, parse_document
from evalkit.errors import InputError
from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.runner import Options
from helpers.tier import examples, subset

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(edit_loader() is None, reason="PyYAML built without libyaml")


def _yaml_files() -> list[Path]:
    skip = {".git", "node_modules"}
    return sorted(
        p
        for p in ROOT.rglob("*.y*ml")
        if not skip & set(p.relative_to(ROOT).parts) and p.suffix in (".yaml", ".yml")
    )


def _read(text: str, exact: bool):
    try:
        doc = parse_document(text, "t.yaml", exact=exact)
    except InputError as err:
        return ("refused", str(err))
    return (doc.data, doc.spans, doc.duplicates)


# The known differences: texts libyaml 0.2.5 reads and the pure-Python scanner refuses,
# each with the exact loader's refusal. The edit read may accept them (every text an edit
# makes is proved by the exact loader afterwards); a user-facing read never does
# (test_what_libyaml_alone_accepts_is_refused_by_every_user_facing_read). The fuzz below
# makes the first from any `command: |` line of the repository by deleting a space.
LIBYAML_ONLY = {
    # a comment right after a block scalar's header, with no space before the `#`
    "command: |#\n  x\n": "expected chomping or indentation indicators, but found '#'",
    "command: >-#\n  x\n": "expected chomping or indentation indicators, but found '#'",
    # `?` inside a plain scalar of a flow sequence (found by a fuzz of mutated configs)
    "versions: [0.1.6? 0, 0.1.7]\n": "expected ',' or ']', but got '?'",
}


def _agree(text: str) -> None:
    from evalkit.config import yamldoc

    yamldoc._PARSED.clear()  # each side reads the text itself, not the other's cached copy
    edit = _read(text, exact=False)
    yamldoc._PARSED.clear()
    exact = _read(text, exact=True)
    if edit[0] != "refused" and exact[0] == "refused":
        known = set(LIBYAML_ONLY.values())
        assert any(reason in exact[1] for reason in known), exact[1]  # a new difference
        return
    assert edit == exact


TEXTS = [p.read_text(encoding="utf-8", errors="replace") for p in subset(_yaml_files(), 4)]


def test_every_yaml_file_of_the_repository_reads_the_same():
    assert len(TEXTS) > 50
    for text in TEXTS:
        _agree(text)


# Characters that change how YAML reads a line, tabs and a byte-order mark included (where
# libyaml is more lenient than the pure-Python scanner, so the edit read must decline).
NOISE = list(" \t\n:-#'\"[]{},&*!|>%@`\r") + ["é", "😀", "\u2028", "\ufeff", "\x85", "a", "0"]


@settings(max_examples=examples(400), deadline=None)
@given(
    st.sampled_from(range(len(TEXTS))),
    st.lists(st.tuples(st.floats(0, 1), st.sampled_from(NOISE), st.booleans()), max_size=4),
)
def test_mutated_texts_read_the_same_or_are_refused_the_same(index, edits):
    text = TEXTS[index][:4000]
    for where, char, insert in edits:
        at = int(where * len(text))
        text = text[:at] + char + text[at:] if insert else text[:at] + text[at + 1 :]
    _agree(text)


def test_a_tab_the_launcher_refuses_is_refused_by_the_edit_read_too():
    text = "deployment:\n  image: x\t# a tab before a comment\n"
    assert edit_loader()(text).get_single_node() is not None  # libyaml alone accepts it
    with pytest.raises(InputError):
        parse_document(text, "t.yaml", exact=False)


def test_the_edit_read_keeps_the_depth_bound():
    deep = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(InputError, match="nested deeper"):
        parse_document(deep, "t.yaml", exact=False)


def test_fix_refuses_a_file_the_launcher_refuses_before_any_round():
    text = "defaults:\n  - execution: local\nevaluation:\n  env_vars:\n    A: HF_TOKEN\t# tab\n"
    with pytest.raises(InputError):
        fix_text(text, "t.yaml", Options(env={}))


def test_doc_exact_reads_as_the_launcher():
    doc = Doc("a: 1\n", "t.yaml")
    assert doc.exact().data == doc.doc.data == {"a": 1}


@pytest.mark.parametrize("text", sorted(LIBYAML_ONLY))
def test_a_known_difference_is_expected_not_failed(text):
    _agree(text)  # the fuzz draws such texts (Hypothesis then replays them every run)


@pytest.mark.parametrize("text", sorted(LIBYAML_ONLY))
def test_what_libyaml_alone_accepts_is_refused_by_every_user_facing_read(text):
    """The known leniencies beyond tabs: an edit read may accept them (its texts are proved
    by the exact loader afterwards), a user-facing read never does."""
    assert edit_loader()(text).get_single_node() is not None
    with pytest.raises(InputError, match=re.escape(LIBYAML_ONLY[text])):
        parse_document(text, "t.yaml")
    with pytest.raises(InputError):
        fix_text("defaults:\n  - execution: local\n" + text, "t.yaml", Options(env={}))
