"""`preflight --fix` writes as an editor would, and `--diff` is a patch that applies.

Each case failed before (issue 30, item 2): a read-only file was rewritten, the owner and
hard links were lost to a rename, CRLF files got LF lines, a diff of a file without a
final newline did not apply, and a diff whose context held a secret came out redacted,
so `patch -p0` applied one hunk and failed the other. `patch` is GNU patch, as the
documented `--diff | patch -p0` runs it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from .conftest import FIXTURE_ENV, FIXTURES

WALLTIME = FIXTURES / "NEL202" / "fail" / "unquoted_ten_hours.yaml"
SHORT_SHA = FIXTURES / "NEL406" / "fail" / "short_sha.yaml"
needs_patch = pytest.mark.skipif(shutil.which("patch") is None, reason="no patch(1)")


@pytest.fixture(autouse=True)
def fixed_env(monkeypatch, tmp_path):
    for key, value in FIXTURE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)


def _copy(tmp_path, source=WALLTIME, name="c.yaml", data=None):
    target = tmp_path / name
    target.write_bytes(source.read_bytes() if data is None else data)
    return target


def test_read_only_file_is_exit_2_and_unchanged(run_cli, tmp_path):
    cfg = _copy(tmp_path)
    other = _copy(tmp_path, SHORT_SHA, "other.yaml")
    before = cfg.read_bytes(), other.read_bytes()
    os.chmod(cfg, 0o444)  # root may write it anyway: the mode says the owner does not want it
    code, out, err = run_cli("preflight", other, cfg, "--fix")
    assert code == 2 and out == "" and "read-only" in err and "c.yaml" in err
    assert len(err.strip().splitlines()) == 1
    assert (cfg.read_bytes(), other.read_bytes()) == before  # nothing written, not even other
    assert stat.S_IMODE(os.stat(cfg).st_mode) == 0o444


def test_same_inode_keeps_hard_links_owner_and_mode(run_cli, tmp_path):
    cfg = _copy(tmp_path)
    link = tmp_path / "link.yaml"
    os.link(cfg, link)
    os.chmod(cfg, 0o640)
    inode = os.stat(cfg).st_ino
    if os.geteuid() == 0:
        os.chown(cfg, 4242, 4343)  # another user's file, fixed by root
    code, out, _ = run_cli("preflight", cfg, "--fix")
    assert "fixed 1" in out
    info = os.stat(cfg)
    assert info.st_ino == inode and info.st_nlink == 2
    assert link.read_bytes() == cfg.read_bytes() and b'walltime: "10:00:00"' in cfg.read_bytes()
    assert stat.S_IMODE(info.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (4242, 4343)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "link.yaml"]  # no temp


def test_crlf_file_stays_crlf_inserted_lines_too(run_cli, tmp_path):
    # NEL303 inserts new lines into the serve command
    source = FIXTURES / "NEL303" / "fail" / "bare_envelope.yaml"
    data = source.read_bytes().replace(b"\n", b"\r\n")
    cfg = _copy(tmp_path, data=data)
    code, out, _ = run_cli("preflight", cfg, "--fix")
    assert "fixed 3" in out
    written = cfg.read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n") > data.count(b"\r\n")
    assert b"    --enable-prefix-caching\r\n" in written


def test_other_line_breaks_are_refused(run_cli, tmp_path):
    text = WALLTIME.read_text().replace("# Golden", "# a\u2028b Golden", 1)
    cfg = _copy(tmp_path, data=text.encode())
    code, out, err = run_cli("preflight", cfg, "--fix")
    assert code == 2 and "U+2028" in err and cfg.read_text() == text


def _patched(tmp_path, cfg, diff: str) -> bytes:
    proc = subprocess.run(
        ["patch", "-p0", "--batch"], input=diff.encode(), cwd=tmp_path, capture_output=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return cfg.read_bytes()


@needs_patch
@pytest.mark.parametrize(
    "case", ["plain", "crlf", "no_final_newline", "crlf_no_final_newline", "bom"]
)
def test_diff_applies_with_patch_to_the_bytes_fix_writes(run_cli, tmp_path, case):
    data = WALLTIME.read_bytes()
    if "no_final_newline" in case:
        data = data.rstrip(b"\n")
    if "crlf" in case:
        data = data.replace(b"\n", b"\r\n")
    if case == "bom":
        data = b"\xef\xbb\xbf" + data
    cfg = _copy(tmp_path, data=data)
    code, diff, _ = run_cli("preflight", "c.yaml", "--diff")
    assert code == 1 and diff
    patched = _patched(tmp_path, cfg, diff)
    cfg.write_bytes(data)
    run_cli("preflight", "c.yaml", "--fix")
    assert patched == cfg.read_bytes() != data


@needs_patch
def test_diff_at_the_end_of_a_file_without_final_newline(run_cli, tmp_path):
    # the execution section moved to the end: the fixable line is the last, unterminated
    body = WALLTIME.read_text()
    start = body.index("execution:\n")
    end = body.index("\n\n", start)
    section = body[start:end].replace("  walltime: 10:00:00\n", "")
    data = (body[:start] + body[end + 2 :]).rstrip("\n") + "\n" + section
    data = data.rstrip("\n") + "\n  walltime: 10:00:00"
    cfg = _copy(tmp_path, data=data.encode())
    code, diff, _ = run_cli("preflight", "c.yaml", "--diff")
    assert code == 1 and "\\ No newline at end of file" in diff
    assert _patched(tmp_path, cfg, diff).endswith(b'  walltime: "10:00:00"')


@needs_patch
def test_diff_holding_a_secret_applies_as_printed_or_is_not_printed(run_cli, tmp_path):
    text = WALLTIME.read_text()
    token = "hf_" + "Qx7Lm2Pa9Rt4Vb8Nc3Kd6Wy1Zs5Fg0Hj"
    # a secret in a context line of the walltime hunk, another fixable line elsewhere
    text = text.replace("  walltime: 10:00:00\n", f"  walltime: 10:00:00\n  # token {token}\n")
    text = text.replace(
        "    HF_TOKEN: host:HF_TOKEN\n", "    HF_TOKEN: host:HF_TOKEN\n    X: 1\n", 1
    )
    cfg = _copy(tmp_path, data=text.encode())
    code, out, err = run_cli("preflight", "c.yaml", "--diff")
    if code == 2:  # the output filter would rewrite it: said so, and no partial patch
        assert out == "" and "would not apply as printed" in err and "c.yaml" in err
        assert cfg.read_text() == text
        return
    assert code == 1
    patched = _patched(tmp_path, cfg, out)  # every hunk applies, as printed
    cfg.write_text(text)
    run_cli("preflight", "c.yaml", "--fix")
    assert patched == cfg.read_bytes() != text.encode()


@pytest.mark.parametrize("data", [b"a: 1\r\nb: 2\n", b"a: 1\rb: 2\n"])
def test_mixed_or_lone_cr_line_endings_are_refused(run_cli, tmp_path, data):
    cfg = _copy(tmp_path, data=WALLTIME.read_bytes() + data)
    code, _, err = run_cli("preflight", "c.yaml", "--fix")
    assert code == 2 and "c.yaml" in err and len(err.strip().splitlines()) == 1
    assert cfg.read_bytes() == WALLTIME.read_bytes() + data


def test_one_file_named_twice_is_fixed_once(run_cli, tmp_path):
    cfg = _copy(tmp_path)
    os.link(cfg, tmp_path / "again.yaml")
    code, out, err = run_cli("preflight", "c.yaml", "again.yaml", "./c.yaml", "--fix")
    assert "fixed 1" in out and out.count("fixed 1") == 1, out + err
    assert b'walltime: "10:00:00"' in cfg.read_bytes()


@needs_patch
@pytest.mark.parametrize("char", ["\u202e", "\u2066"])
def test_a_diff_with_a_bidi_control_goes_to_a_pipe_exact_and_not_to_a_terminal(
    run_cli, tmp_path, monkeypatch, char
):
    # YAML itself refuses C0 controls such as ESC; the bidi overrides and isolates it
    # reads, and they reorder what a reader of the diff sees.
    text = WALLTIME.read_text().replace(
        "  walltime: 10:00:00\n", f"  walltime: 10:00:00\n  # note {char}[31m red\n"
    )
    cfg = _copy(tmp_path, data=text.encode())
    code, diff, _ = run_cli("preflight", "c.yaml", "--diff")  # captured: not a terminal
    assert code == 1 and char in diff
    assert _patched(tmp_path, cfg, diff) != text.encode()
    cfg.write_text(text)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    code, out, err = run_cli("preflight", "c.yaml", "--diff")
    line = text[: text.index(char)].count("\n") + 1
    assert code == 2 and out == "" and f"c.yaml:{line}:" in err
    assert f"U+{ord(char):04X}" in err and len(err.strip().splitlines()) == 1
    assert cfg.read_text() == text
