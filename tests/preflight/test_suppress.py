"""Suppression as linters do it: inline comments, --select/--ignore, --fail-on; suppressed
findings are counted in the summary, never silently dropped."""

from __future__ import annotations

import json

import pytest

from evalkit.preflight.suppress import parse_directives

from .conftest import FIXTURE_ENV, FIXTURES

# NEL201 (warning, inherited mount_home) and nothing else above info
INHERITED = FIXTURES / "NEL201/fail/inherited_true.yaml"
TYPO = FIXTURES / "NEL004/fail/walltime_typo.yaml"  # NEL004 error at execution.walltim


@pytest.fixture(autouse=True)
def fixed_env(monkeypatch, tmp_path):
    for key, value in FIXTURE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)


def codes(out: str) -> set[str]:
    return {f["rule"] for f in json.loads(out)["findings"] if f["severity"] != "info"}


def test_directives_parse():
    text = (
        "# header comment\n# evalkit: disable=NEL201, NEL207\n"
        "execution:\n  walltim: 1  # evalkit: disable=NEL004 reason: legacy\n"
        "  # evalkit: disable=NEL202\n  walltime: 10:00:00\n"
    )
    d = parse_directives(text)
    assert d.whole_file == {"NEL201", "NEL207"}
    assert d.by_line == {4: {"NEL004"}, 6: {"NEL202"}}


def test_end_of_line_comment_suppresses_that_line(run_cli, tmp_path):
    text = TYPO.read_text().replace(
        '  walltim: "04:00:00"', '  walltim: "04:00:00"  # evalkit: disable=NEL004'
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    code, out, _ = run_cli("preflight", cfg, "--format", "json")
    doc = json.loads(out)
    assert "NEL004" not in codes(out)
    assert doc["summary"]["suppressed"] == 1 and doc["suppressed"] == {"NEL004": 1}
    assert code == 0


def test_comment_on_another_line_does_not_suppress(run_cli, tmp_path):
    text = TYPO.read_text() + "# evalkit: disable=NEL004\n"  # below the keys: not file-wide
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    code, out, _ = run_cli("preflight", cfg, "--format", "json")
    assert "NEL004" in codes(out) and code == 1


def test_own_line_at_top_suppresses_whole_file(run_cli, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("# evalkit: disable=NEL201\n" + INHERITED.read_text())
    code, out, _ = run_cli("preflight", cfg)
    assert " NEL201 " not in out
    assert "1 finding(s) suppressed (NEL201 x1)" in out


def test_ignore_and_select(run_cli):
    _, out, _ = run_cli("preflight", TYPO, "--ignore", "NEL004", "--format", "json")
    assert "NEL004" not in codes(out)
    assert json.loads(out)["suppressed"]["NEL004"] == 1
    _, out, _ = run_cli("preflight", TYPO, "--select", "NEL0", "--format", "json")
    assert codes(out) and all(c.startswith("NEL0") for c in codes(out))


def test_unknown_code_is_a_usage_error(run_cli):
    code, _, err = run_cli("preflight", TYPO, "--ignore", "NEL999")
    assert code == 2 and "NEL999" in err


@pytest.mark.parametrize(
    ("args", "expected"),
    [((), 0), (("--fail-on", "warning"), 1), (("--strict",), 1), (("--fail-on", "error"), 0)],
)
def test_fail_on(run_cli, args, expected):
    code, out, _ = run_cli("preflight", INHERITED, *args)
    assert code == expected, out
