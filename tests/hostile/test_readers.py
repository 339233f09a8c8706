"""Every reader bounded (issue 22, items 6-8): hostile run and skill files end in one line
naming the file and exit 2, in bounded time and memory, and leave the input unchanged.

Runs come from tests/helpers/rungen.py (a synthetic nel 0.2.6 MRCR run); each test then
plants one hostile file in it. Memory is measured as the peak RSS of a fresh `evalkit`
process (tests/hostile/rss_driver.py reports its VmHWM), so other tests cannot pollute it;
those tests are marked `entrypoint`, and the ones without a memory figure run in-process.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from evalkit.errors import InputError
from helpers.cli import run_evalkit
from helpers.rungen import write_mrcr_run
from helpers.tier import size

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DRIVER = HERE / "rss_driver.py"
# 1 KB: nine levels of nine aliases, 9**9 (387 million) values when expanded.
ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
)
RSS_BOUND_KB = 400 * 1024  # a clean run of these commands peaks well under 200 MB
HANG_TIMEOUT = 120  # seconds; a FIFO read that blocks would wait forever


def evalkit(*argv, cwd=None) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in kB) of `evalkit ARGV` in a fresh process."""
    handle, name = tempfile.mkstemp(prefix="evalkit-rss-")
    os.close(handle)
    rss_file = Path(name)
    env = {**os.environ, "PYTHONPATH": str(REPO / "tools"), "RSS_OUT": name}
    done = subprocess.run(
        [sys.executable, str(DRIVER), *map(str, argv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_TIMEOUT,
        cwd=cwd,
    )
    text = rss_file.read_text()
    rss_file.unlink()
    rss = int(text) if text else -1
    return done.returncode, done.stdout, done.stderr, rss


def evalkit_here(*argv, cwd=None) -> tuple[int, str, str, int]:
    """`evalkit ARGV` in this process (tests/helpers/cli.py), for the tests that need no
    peak-RSS figure: the same 4-tuple with -1 for RSS; a call still blocked after
    HANG_TIMEOUT fails the test."""
    done = run_evalkit(*argv, cwd=cwd, timeout=HANG_TIMEOUT)
    return done.returncode, done.stdout, done.stderr, -1


def digest(root: Path) -> str:
    """Bytes and names of every regular file under root (special files and links by name)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(str(path).encode())
        if path.is_symlink():
            h.update(os.readlink(path).encode())
        elif path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def one_line_naming(err: str, name: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert name in lines[0], err
    assert "internal error" not in lines[0] and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def run(tmp_path) -> Path:
    return write_mrcr_run(tmp_path / "runs", n_items=12, prompt_chars=200)


# ------------------------------------------------------------------- YAML bounds


@pytest.mark.parametrize("command", ["score", "validate", "status", "compare"])
@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_alias_bomb_in_run_config(run, command):
    config = run / "artifacts" / "run_config.yml"
    config.write_text(ALIAS_BOMB)
    before = digest(run)
    argv = [command, run, run] if command == "compare" else [command, run]
    code, _, err, rss = evalkit(*argv)
    assert code == 2
    line = one_line_naming(err, "run_config.yml")
    assert "alias bomb" in line
    assert 0 < rss < RSS_BOUND_KB
    assert digest(run) == before


def test_alias_bomb_in_a_base64_blob_of_run_sub_is_skipped(run):
    """run.sub's embedded config (read when the run kept no config) is bounded too."""
    import base64

    from evalkit.runs.settings import embedded_configs

    blob = base64.b64encode(ALIAS_BOMB.encode()).decode()
    text = f'echo "{blob}" | base64 -d > config_ef.yaml\n'
    # Bounded means refused before the alias expansion: no time limit needed to see it, as
    # an unbounded load of this blob would not return at all (memory, then the test timeout).
    assert embedded_configs(text) == []


@pytest.mark.parametrize(
    "text, needle",
    [
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nesting depth"),  # libyaml's own cap
        ("a:\n" + "".join(" " * (i + 1) + "b:\n" for i in range(300)), "nested deeper"),
    ],
)
def test_deep_yaml_in_run_config(run, text, needle):
    (run / "artifacts" / "run_config.yml").write_text(text)
    code, _, err, _ = evalkit_here("score", run)
    assert code == 2
    assert needle in one_line_naming(err, "run_config.yml")


def test_every_yaml_reader_shares_the_bounds(tmp_path):
    """results.yml, gate/reference files and facts go through evalkit.inputs.load_yaml."""
    from evalkit.init.facts import read_facts
    from evalkit.inputs import load_yaml

    bomb = tmp_path / "facts.yaml"
    bomb.write_text(ALIAS_BOMB)
    for reader in (load_yaml, lambda p: read_facts(str(p), [])):
        with pytest.raises(InputError) as info:
            reader(bomb)
        assert info.value.path == str(bomb) and "alias bomb" in info.value.message


def test_deep_json_names_the_file(run):
    (run / "artifacts" / "evaluator_rollouts_aggregate_metrics.json").write_text(
        "[" * 100_000 + "]" * 100_000
    )
    code, _, err, _ = evalkit_here("score", run)
    assert code == 2
    one_line_naming(err, "evaluator_rollouts_aggregate_metrics.json")


def test_deep_json_through_the_generic_reader(tmp_path):
    from evalkit.inputs import load_json

    deep = tmp_path / "eval_factory_metrics.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError) as info:
        load_json(deep)
    assert info.value.path == str(deep) and "too deep" in info.value.message


def test_deep_json_line_in_rollouts_names_the_line(run):
    rollouts = run / "artifacts" / "evaluator_rollouts.jsonl"
    with rollouts.open("a") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
    lines = rollouts.read_bytes().count(b"\n")
    code, _, err, _ = evalkit_here("regrade", rollouts)
    assert code == 2
    one_line_naming(err, f"evaluator_rollouts.jsonl:{lines}:")


# ------------------------------------------------------------- special files, links


@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_status_streams_a_big_log(run):
    """Peak memory does not grow with the log (status held whole logs: 317 MB -> 1.1 GB)."""
    code, _, err, small_rss = evalkit("status", run, "--format", "json")
    assert code in (0, 1), err
    log = run / "logs" / "client-big.log"
    line = b"INFO 12-01 10:00:00 noise line from the gym client " + b"x" * 200 + b"\n"
    with log.open("wb") as handle:
        for _ in range(4):
            handle.write(line * (8 * 1024 * 1024 // len(line)))
        handle.write(b"y" * (10 * 1024 * 1024) + b"\n")  # one 10 MB line: cut to the cap
    before = digest(run)
    code, _, err, rss = evalkit("status", run, "--format", "json")
    assert code in (0, 1), err
    # The log is 42 MB; a status that held it whole grew by several times that.
    assert rss - small_rss < 30 * 1024, (rss, small_rss)
    assert digest(run) == before


@pytest.mark.parametrize("command", ["validate", "status", "score", "compare"])
@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_log_symlinked_to_dev_zero(run, command):
    (run / "logs" / "client-zero.log").symlink_to("/dev/zero")
    argv = [command, run, run] if command == "compare" else [command, run]
    code, _, err, rss = evalkit(*argv)
    assert code == 2
    line = one_line_naming(err, "client-zero.log")
    assert "leaves the run directory" in line
    assert 0 < rss < RSS_BOUND_KB


@pytest.mark.parametrize("command", ["validate", "compare", "status"])
def test_fifo_log_is_refused_not_waited_on(run, command):
    os.mkfifo(run / "logs" / "client-pipe.log")
    argv = [command, run, run] if command == "compare" else [command, run]
    code, _, err, _ = evalkit_here(*argv)  # a blocking open would hit HANG_TIMEOUT
    assert code == 2
    assert "named pipe" in one_line_naming(err, "client-pipe.log")


def test_fifo_is_refused_by_the_open_itself(tmp_path):
    """Even a caller that skipped the run check never blocks: open_binary checks fstat."""
    from evalkit.inputs import read_text

    fifo = tmp_path / "results.yml"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as info:
        read_text(fifo)
    assert "named pipe" in info.value.message


def test_symlink_out_of_the_run_is_not_read(run, tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$secret-hash-value:19000:0:99999:7:::\n")
    run_sub = run / "run.sub"
    run_sub.unlink(missing_ok=True)
    run_sub.symlink_to(secret)
    code, out, err, _ = evalkit_here("validate", run)
    assert code == 2
    assert "leaves the run directory" in one_line_naming(err, "run.sub")
    assert "secret-hash-value" not in out + err


def test_symlink_inside_the_run_is_followed(run):
    logs = run / "logs"
    first = sorted(logs.glob("client-*.log"))[0]
    (logs / "client-again.log").symlink_to(first.name)
    code, _, err, _ = evalkit_here("validate", run)
    assert code in (0, 1), err


def test_symlink_loop_names_the_file(run):
    loop = run / "logs" / "client-loop.log"
    loop.symlink_to(loop.name)
    code, _, err, _ = evalkit_here("validate", run)
    assert code == 2
    assert "symbolic link loop" in one_line_naming(err, "client-loop.log")


def _skill(tmp_path) -> Path:
    skill = tmp_path / "skill"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: skill\ndescription: A test skill for hostile references.\n---\n\n"
        "# Skill\n\nSee [b](references/b.md).\n"
    )
    return skill


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
@pytest.mark.entrypoint  # peak RSS of a fresh process
def test_check_skill_refuses_links_out_of_the_skill(tmp_path, target):
    skill = _skill(tmp_path)
    if target == "outside":
        target = tmp_path / "shadow"
        target.write_text("root:$6$secret-hash-value:19000::\n")
    (skill / "references" / "b.md").symlink_to(target)
    before = digest(skill)
    code, out, err, rss = evalkit("check-skill", skill)
    assert code == 2
    assert "leaves the skill directory" in one_line_naming(err, "b.md")
    assert "secret-hash-value" not in out + err
    assert 0 < rss < RSS_BOUND_KB
    assert digest(skill) == before


def test_check_skill_refuses_a_fifo(tmp_path):
    skill = _skill(tmp_path)
    os.mkfifo(skill / "references" / "b.md")
    code, _, err, _ = evalkit_here("check-skill", skill)
    assert code == 2
    assert "named pipe" in one_line_naming(err, "b.md")


def test_skill_frontmatter_alias_bomb_is_a_finding(tmp_path):
    from evalkit.skillcheck.loader import split_frontmatter

    block = "---\n" + ALIAS_BOMB + "---\n"
    frontmatter, _ = split_frontmatter(block)
    assert frontmatter.data is None and "alias bomb" in frontmatter.error


# -------------------------------------------------------------- permission errors


def test_permission_denied_names_the_file(run, run_cli, monkeypatch):
    """Tests run as root, where chmod 000 does not deny a read: the open is made to raise
    PermissionError instead, as it does for an ordinary user on a 0o000 file."""
    import evalkit.inputs as inputs

    real_open = os.open
    config = run / "artifacts" / "run_config.yml"

    def deny(path, flags, *args, **kwargs):
        if Path(path) == config:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(inputs.os, "open", deny)
    code, _, err = run_cli("score", run)
    assert code == 2
    assert err.strip().endswith(f"error: {config}: permission denied")


def test_regrade_unreadable_file_names_no_line_zero(tmp_path, run_cli, monkeypatch):
    import evalkit.inputs as inputs

    rollouts = tmp_path / "evaluator_rollouts.jsonl"
    rollouts.write_text("{}\n")
    real_open = os.open

    def deny(path, flags, *args, **kwargs):
        if Path(path) == rollouts:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(inputs.os, "open", deny)
    code, _, err = run_cli("regrade", rollouts)
    assert code == 2
    assert err.strip().endswith(f"error: {rollouts}: permission denied")


# ------------------------------------------------------------------ linear-time scans

LINE_BYTES = size(10 * 1024 * 1024)  # 10 MB; a tenth in the fast tier (helpers/tier.py)


def _scans():
    """Every pattern evalkit runs over run.sub, log or script text, with the single-line
    input that is worst for it (a long token of what the pattern repeats)."""
    from evalkit import status
    from evalkit.runs import logscan
    from evalkit.runs.run import checkpoint_mount
    from evalkit.runs.serverlog import VllmLogStats
    from evalkit.runs.settings import embedded_configs
    from evalkit.skillcheck.loader import _DISABLE

    def log_scan(text):
        logscan.scan_log("client-0.log", [text])

    def server(text):
        VllmLogStats().feed(1, text)

    return [
        (checkpoint_mount, "a" * LINE_BYTES),  # 1 MB took > 120 s with the old regex
        (checkpoint_mount, "/ckpt," * (LINE_BYTES // 6) + ":/checkpoint"),
        (logscan.pre_cmd_failure, "error " * (LINE_BYTES // 6)),
        (logscan.pre_cmd_failure, "tiktoken" * (LINE_BYTES // 8)),
        (log_scan, "Traceback " + "e" * LINE_BYTES),
        (log_scan, "GPU KV cache usage: " + "1." * (LINE_BYTES // 2)),
        (server, "Maximum concurrency for " + "1," * (LINE_BYTES // 2)),
        (embedded_configs, 'echo "' + "A" * LINE_BYTES),
        (status.walltime_from_run_sub, "#SBATCH --time " + "1" * LINE_BYTES),
        (_DISABLE.search, "<!-- evalkit: disable=a" + " " * LINE_BYTES),
    ]


def test_scans_are_linear_on_a_10_mb_line():
    """Each scan costs about a bare pass over the text; bounds are generous (a loaded
    2-core machine), a quadratic pattern would take hours at this size."""
    scans = _scans()
    start = time.thread_time()  # CPU of this thread, not wall-clock (others' load)
    for scan, text in scans:
        scan(text)
    total = time.thread_time() - start
    bare = time.thread_time()
    for _, text in scans:
        text.count("\n")
    bare = time.thread_time() - bare
    assert total < max(5.0, 200 * bare), (total, bare)


def test_checkpoint_mount_matches_the_launcher_srun_line():
    from evalkit.runs.run import checkpoint_mount

    line = (
        "srun --container-image nvcr.io/nvidia/vllm:25.09 "
        '--container-mounts "/lustre/ckpt/model-fp8:/checkpoint:ro,/tmp:/tmp" vllm serve'
    )
    assert checkpoint_mount(line) == "/lustre/ckpt/model-fp8"
    assert checkpoint_mount(" :/checkpoint x:/checkpointed") is None
    assert checkpoint_mount("a:/x,b:/checkpoint") == "b"
