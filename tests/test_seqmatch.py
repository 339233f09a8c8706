"""The C matcher gives difflib.SequenceMatcher(None, a, b).ratio() to the last bit."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

# The test install always has a compiler, so a missing build is a failure here (users
# without one fall back to difflib, see evalkit.benchmarks.mrcr.grading).
from evalkit import _seqmatch as seqmatch  # noqa: E402
from helpers.tier import examples


def reference(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


# Small alphabets make long runs, ties and popular (autojunk) elements likely; the
# accented, CJK and astral characters check that elements are code points.
ALPHABETS = st.sampled_from(
    ["ab", "abc ", "abcdefgh \n", "a\u00e9\u4e2d\U0001f600 ", "xyz0123456789"]
)


@st.composite
def pair(draw):
    alphabet = draw(ALPHABETS)
    text = st.text(alphabet=alphabet, max_size=draw(st.sampled_from([10, 120, 450])))
    a = draw(text)
    if draw(st.booleans()):  # b a mutated copy of a: the common MRCR case
        chars = list(a)
        for _ in range(draw(st.integers(0, 12))):
            if chars and draw(st.booleans()):
                del chars[draw(st.integers(0, len(chars) - 1))]
            else:
                chars.insert(draw(st.integers(0, len(chars))), draw(st.sampled_from(alphabet)))
        b = "".join(chars)
    else:
        b = draw(text)
    return a, b


@settings(max_examples=examples(1500), deadline=None)
@given(pair())
@example(("", ""))
@example(("abc", ""))
@example(("", "abc"))
@example(("a" * 300, "a" * 300))  # every element popular in b
@example(("ab" * 150, "ba" * 150))
def test_bit_identical_to_difflib(ab):
    a, b = ab
    assert seqmatch.ratio(a, b) == reference(a, b)
    assert seqmatch.ratio(b, a) == reference(b, a)


def test_long_texts_with_edits_and_runaway_output():
    rng = random.Random(11)
    words = [
        "the",
        "a",
        "tapir",
        "misty",
        "glade",
        "verse",
        "river",
        "stone",
        "light",
        "under",
        "over",
        "moon",
    ]
    for _ in range(40):
        answer = " ".join(rng.choice(words) for _ in range(rng.randint(50, 900)))
        close = list(answer)
        for _ in range(rng.randint(0, 30)):
            close[rng.randrange(len(close))] = rng.choice("xyz ")
        candidates = ["".join(close), answer[::-1], answer * 3, answer[: len(answer) // 2]]
        for response in candidates:
            assert seqmatch.ratio(response, answer) == reference(response, answer)


def test_argument_types():
    with pytest.raises(TypeError):
        seqmatch.ratio(b"bytes", "str")


@pytest.mark.entrypoint  # the switch is read when grading is imported: a fresh process
def test_regrade_is_identical_with_pure_difflib(repo_root, tmp_path):
    """EVALKIT_PURE_DIFFLIB=1 switches grading to difflib; every figure stays the same."""
    import os
    import subprocess
    import sys

    run = repo_root / "tests" / "data" / "runs" / "mrcr-canary"
    outputs = []
    for pure in ("", "1"):
        env = {**os.environ, "EVALKIT_PURE_DIFFLIB": pure}
        code = (
            "import sys, evalkit.benchmarks.mrcr.grading as g; "
            "print(g._ratio.__module__, file=sys.stderr); "
            "from evalkit.cli import main; raise SystemExit(main(sys.argv[1:]))"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code, "regrade", str(run), "--format", "json"],
            env=env,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append((proc.stderr.split()[0], proc.stdout))
    (c_module, c_out), (py_module, py_out) = outputs
    assert c_module == "evalkit._seqmatch" and py_module == "evalkit.benchmarks.mrcr.grading"
    assert c_out == py_out
