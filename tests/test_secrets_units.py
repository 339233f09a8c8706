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


def _json_escaped(text: str, chars: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if c in chars else c for c in text)


def test_a_json_escaped_secret_is_cut_exactly_with_escapes_around_it():
    from evalkit.secrets.quote import redact_quoted

    value = _json_escaped(TOKEN, "hA37")  # `\u0068f_\u0041b\u0033dE6...yZ\u0037`
    before, after = '{"a": "\\u0041\\u0042", "HF_TOKEN": "', '", "c": "\\u0041fter"}'
    assert redact_quoted(before + value + after) == before + "<redacted:HF_TOKEN>" + after


def test_a_date_under_a_secret_name_is_no_secret():
    import datetime

    from evalkit.secrets.known import KNOWN
    from evalkit.secrets.quote import remember_config

    KNOWN.clear()
    try:
        # YAML reads `API_KEY: 2026-12-06` as a date: no credential is one
        remember_config({"API_KEY": datetime.date(2026, 12, 6), "HF_TOKEN": "k3y-value-9"})
        assert "2026-12-06" not in KNOWN and "k3y-value-9" in KNOWN
    finally:
        KNOWN.clear()


def test_a_token_word_first_is_a_secret_name():
    from evalkit.secrets.names import is_secret_name

    # TOKEN's word before it decides (eos_token: model text); as the first word it has none
    assert is_secret_name("TOKEN_PAD") is True
    assert is_secret_name("PAD_TOKEN") is False


@pytest.mark.parametrize(
    ("text", "comments"),
    [
        # a top-level `(` opens a subshell, not a $(...): the here-document body after the
        # newline is still read as its own script (its quote stays inside it)
        ("(cat <<EOF\nit's\nEOF\n) # c\n", ["# c"]),
        # a backquote inside "..." opens a command substitution, not an escape
        ('echo "`echo a`" # c\n', ["# c"]),
    ],
)
def test_subshells_and_backquotes_in_quotes(text, comments):
    assert [text[a:b] for a, b in comment_spans(text)] == comments


def test_a_known_value_is_found_whatever_its_first_character():
    from evalkit.secrets.known import MIN_LENGTH, KnownSecrets

    known = KnownSecrets()
    known.add("12345678-secret", "X_TOKEN")  # sorts before "<redacted:...>"
    known.add("zz-secret-9", "Y_TOKEN")  # sorts after it
    assert known.found_in("a 12345678-secret b") and known.found_in("a zz-secret-9 b")
    assert not known.found_in("a nothing b")
    known.add("a" * MIN_LENGTH, "Z_TOKEN")  # exactly the shortest value kept
    known.add("b" * (MIN_LENGTH - 1), "W_TOKEN")
    assert "a" * MIN_LENGTH in known and "b" * (MIN_LENGTH - 1) not in known


def test_a_bare_value_leaves_its_json_comma_a_quoted_one_keeps_it():
    from evalkit.secrets.quote import redact_quoted

    assert redact_quoted("HF_TOKEN=s3cretvalue1, next") == "HF_TOKEN=<redacted:HF_TOKEN>, next"
    assert redact_quoted('HF_TOKEN="s3cretvalue1," n') == 'HF_TOKEN="<redacted:HF_TOKEN>" n'


def test_a_secret_found_by_name_and_by_shape_is_reported_once():
    from evalkit.secrets.quote import config_secrets

    value = TOKEN + "abcdefgh"  # a secret name's value in the HF token shape as well
    # a comment makes it a command read twice: by name outside comments, by shape anywhere
    text = f"export HF_TOKEN={value} && run  # the token\n"
    assert config_secrets(text) == [("HF_TOKEN", value)]


def test_a_here_document_after_a_command_substitution_is_read():
    text = "echo $(x) <<EOF\nit's\nEOF\necho # c\n"  # $(x) closed: the body is its own
    assert [text[a:b] for a, b in comment_spans(text)] == ["# c"]
