"""Issue 52: the secrets package's edges its property tests did not pin (mutation survivors):
the line a secret is reported on, where a here-document ends, and how deep bodies nest.

The here-documents follow bash(1), "Here Documents": the body runs from the line after
`<<WORD` to a line that is exactly WORD; an unterminated one runs to the end of the text.
"""

from __future__ import annotations

import pytest

from evalkit.secrets.quote import secrets_in_file
from evalkit.secrets.shell import _MAX_DEPTH, comment_spans

TOKEN = "hf_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"  # a made-up value in the HF token shape


def test_a_secret_in_a_file_is_reported_on_its_own_line():
    assert secrets_in_file(f"x = 1\nHF_TOKEN={TOKEN}\n") == [(2, "HF_TOKEN")]
    assert secrets_in_file(f"HF_TOKEN={TOKEN}") == [(1, "HF_TOKEN")]


def test_the_shell_after_a_here_document_is_read_as_shell_again():
    # the body holds an unmatched quote; after `EOF` the `#` starts a comment again
    text = "cat <<EOF\nit's\nEOF\necho # c\n"
    assert [text[a:b] for a, b in comment_spans(text)] == ["# c"]


def test_an_unterminated_body_runs_to_the_end_of_the_text():
    text = "cat <<EOF\n# c"  # no terminator and no last newline
    assert comment_spans(text) == [(10, 13)]
    text = "cat <<EOF\nx\nEO"  # a last line that only starts like the word
    assert comment_spans(text) == []


def _nested(depth: int) -> str:
    words = [f"W{i}" for i in range(depth)]
    opened = "".join(f"cat <<{w}\n" for w in words)
    return opened + "# c\n" + "".join(f"{w}\n" for w in reversed(words))


@pytest.mark.parametrize("depth", [1, _MAX_DEPTH - 1, _MAX_DEPTH, _MAX_DEPTH + 1])
def test_bodies_are_read_as_scripts_down_to_the_depth_bound(depth):
    text = _nested(depth)
    found = [text[a:b] for a, b in comment_spans(text)]
    assert found == (["# c"] if depth <= _MAX_DEPTH else [])


def test_the_depth_bound_is_eight():
    assert _MAX_DEPTH == 8  # deeper bodies are data (shell.py); a change is a decision


@pytest.mark.parametrize(
    ("text", "comments"),
    [
        ("#c", ["#c"]),  # at the very start of the text (no character before it)
        ("x #c", ["#c"]),
        ("x#c", []),
        # an escaped blank is part of the word, so the `#` after it is inside the word
        # (bash 5.2: `echo a\ #x` prints `a #x`); so is one after a line continuation
        ("echo a\\ #x", []),
        ("echo a\\\n#x", []),
        ("echo a\\\\ #x", ["#x"]),  # an escaped backslash: the blank is a blank
        ("echo \\#x # y", ["# y"]),
    ],
)
def test_a_comment_starts_only_where_a_word_starts(text, comments):
    assert [text[a:b] for a, b in comment_spans(text)] == comments


def test_a_body_ends_only_at_a_line_that_is_exactly_the_word():
    # "A" sorts before "EOF" and "EOFX" holds it: neither ends the body, whose own
    # unmatched quote stays inside it
    text = "cat <<EOF\nA\nEOFX\n'\nEOF\necho # c\n"
    assert [text[a:b] for a, b in comment_spans(text)] == ["# c"]


def test_a_lit_prefixed_secret_is_known_by_its_value():
    from evalkit.secrets.known import KnownSecrets

    known = KnownSecrets()
    known.add("lit:s3cret-value-1", "evaluation.env_vars.MY_TOKEN")
    assert "s3cret-value-1" in known
    assert known.replace("got s3cret-value-1.") == "got <redacted:MY_TOKEN>."
