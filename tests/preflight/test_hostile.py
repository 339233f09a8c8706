"""Hostile input stays bounded: alias bombs, deep nesting and huge files end quickly with
exit 2 and one line naming the file, never a hang or a traceback."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.config.yamldoc import MAX_BYTES
from helpers.tier import examples, size

from .test_property import run_preflight

# CPU seconds of this thread, not wall-clock: other processes on a loaded machine cannot
# stretch it, while an exponential expansion still blows far past it. Typical: 0.1-0.7 s.
LIMIT_S = 2.0


def alias_bomb(levels: int, width: int) -> str:
    """The "billion laughs" shape: each level repeats the previous one `width` times."""
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\nevaluation: {tasks: [{name: x}]}\n"


def assert_refused_fast(text: str) -> str:
    start = time.thread_time()
    code, out, err = run_preflight(text)
    elapsed = time.thread_time() - start
    assert elapsed < LIMIT_S, f"took {elapsed:.2f} CPU s"
    assert code == 2, (code, out[-500:], err)
    assert err.count("\n") == 1 and "config.yaml" in err, err
    return err


def test_billion_laughs():
    err = assert_refused_fast(alias_bomb(9, 10))
    assert "alias bomb" in err


def test_deep_flow_nesting():
    assert_refused_fast("a: " + "[" * 5000 + "]" * 5000 + "\n")


def test_deep_block_nesting():
    text = "".join("  " * i + f"k{i}:\n" for i in range(3000)) + "  " * 3000 + "v: 1\n"
    assert_refused_fast(text)


def test_huge_file():
    line = "    - name: lm-evaluation-harness.ifeval\n"
    text = "evaluation:\n  tasks:\n" + line * (MAX_BYTES // len(line) + 10)
    assert "too large" in assert_refused_fast(text)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(levels=st.integers(6, 12), width=st.integers(6, 12))
def test_any_alias_bomb_is_bounded(levels, width):
    """Whatever its shape, an exponential alias expansion is cut off quickly."""
    if width**levels <= 200_000:
        return  # small enough to be a (silly) legitimate file
    assert "alias bomb" in assert_refused_fast(alias_bomb(levels, width))


def _scan_cpu_seconds(size: int) -> float:
    """CPU time to scan launcher output of one `size`-character line, each way it is read."""
    from evalkit.preflight import launcher

    words = "ValueError" * (size // 10)  # a run of word characters naming an error
    start = time.thread_time()
    launcher.last_error_line(words)
    launcher.rendered_scripts("=========== Task 0 " + "=" * 21 + "\n=========== " + words)
    launcher.first_error((": line 1" * (size // 8)) + "\n", "/tmp/check.sh")
    launcher.heredoc_closers("<<'" + words)
    return time.thread_time() - start


def test_launcher_output_scans_are_linear():
    # issue 25: the `SomeError:` pattern backtracked quadratically (100 kB of word
    # characters took 30 s); every scan of the launcher's output is linear now.
    small, big = _scan_cpu_seconds(size(1_000_000)), _scan_cpu_seconds(size(10_000_000))
    assert big < 40 * max(small, 0.01)  # ten times the input, about ten times the time
    assert big < 60
