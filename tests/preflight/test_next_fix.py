"""`next:` offers `--fix` only for findings a fixer will change the file for (issue 40:
an agent ran `--fix` for an NEL313 finding whose fixer had nothing to apply)."""

from __future__ import annotations

from evalkit.cli import main

from .conftest import FIXTURE_ENV, FIXTURES

NEL313 = FIXTURES / "NEL313" / "fail"
GPQA = FIXTURES / "NEL009" / "fail" / "ambiguous_gpqa.yaml"


def _next(capsys, monkeypatch, *argv) -> str:
    for name, value in FIXTURE_ENV.items():
        monkeypatch.setenv(name, value)
    main(["preflight", *map(str, argv)])
    out = capsys.readouterr().out
    return out[out.index("next:") :]


def test_a_fixer_with_nothing_to_apply_is_not_offered(capsys, monkeypatch):
    tail = _next(capsys, monkeypatch, NEL313 / "unknown_tool_parser.yaml")
    assert "--fix" not in tail
    assert "by hand: NEL313" in tail


def test_a_fixer_that_changes_the_file_is_offered(capsys, monkeypatch):
    tail = _next(capsys, monkeypatch, NEL313 / "nano_v3_reasoning_parser.yaml")
    assert "--fix   (applies the safe fixes for NEL313" in tail
    assert "by hand: NEL313" not in tail


def test_an_unsafe_only_fix_is_offered_as_such(capsys, monkeypatch):
    tail = _next(capsys, monkeypatch, GPQA)
    assert "--fix --unsafe-fixes --diff" in tail and "NEL009" in tail
    assert "--fix   (applies the safe fixes" not in tail
    assert "by hand: NEL009" not in tail


def test_after_fix_what_is_left_is_by_hand(tmp_path, capsys, monkeypatch):
    config = tmp_path / "c.yaml"
    config.write_text((NEL313 / "unknown_tool_parser.yaml").read_text())
    tail = _next(capsys, monkeypatch, "--fix", config)
    assert "by hand: NEL313" in tail and "applies the safe fixes" not in tail
