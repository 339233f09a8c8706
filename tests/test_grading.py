"""Grading parity: evalkit.benchmarks.mrcr.grading against a reference written from the facts.

Reference (NeMo Gym resources_servers/mrcr verify at the pinned commit): text = the
joined output_text parts of message items; Python str.strip() on the response only;
prefix gate with startswith; removeprefix once on response and answer;
difflib.SequenceMatcher(None, response, answer).ratio() with the default autojunk.
"""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.benchmarks.mrcr.grading import grade, message_text
from helpers.tier import examples

PFX = "Xy12AbC9Qz"
POEM = (
    "**Verse 1**\nIn misty glades the tapirs roam,\nbeneath the ferns they make their home;\n"
    "with patient snouts they test the ground,\nand never make a hurried sound."
)


def reference(response_text: str | None, answer: str, prefix: str) -> tuple[float, bool]:
    text = (response_text or "").strip()
    matched = text.startswith(prefix)
    if not matched:
        return 0.0, False
    r = text[len(prefix) :]
    a = answer[len(prefix) :] if answer.startswith(prefix) else answer
    return difflib.SequenceMatcher(None, r, a).ratio(), True


def official_card_grader(response: str, answer: str, prefix: str) -> float:
    """The dataset card's grader: no strip at all (Gym differs here)."""
    if not response.startswith(prefix):
        return 0.0
    return difflib.SequenceMatcher(
        None, response.removeprefix(prefix), answer.removeprefix(prefix)
    ).ratio()


def message(*texts: str, kind: str = "output_text") -> dict:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": kind, "text": t, "annotations": []} for t in texts],
    }


def reasoning(text: str) -> dict:
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}


RUNAWAY = PFX + POEM[:120] + ("and the ferns and the ferns " * 400)

CASES = {
    "exact copy": (PFX + POEM, PFX + POEM),
    "leading whitespace": ("\n\n  " + PFX + POEM, PFX + POEM),
    "trailing whitespace": (PFX + POEM + "\n\n", PFX + POEM),
    "doubled prefix": (PFX + PFX + POEM, PFX + POEM),
    "empty response": ("", PFX + POEM),
    "prefix only": (PFX, PFX + POEM),
    "missing prefix": (POEM, PFX + POEM),
    "non-ascii and emoji": (
        PFX + "Tapirs 🦛 dream of café nights, ü",
        PFX + "Tapirs 🐘 dream of café nights, ü",
    ),
    "x1c and nbsp are whitespace": ("\x1c\xa0" + PFX + POEM, PFX + POEM),
    "zero width space is not": ("\u200b" + PFX + POEM, PFX + POEM),
    "bom is not": ("\ufeff" + PFX + POEM, PFX + POEM),
    "runaway output": (RUNAWAY, PFX + POEM * 3),
    "reasoning leak": ("I should find the poem.</think>\n\n" + PFX + POEM, PFX + POEM),
    "answer keeps trailing newline": (PFX + POEM, PFX + POEM + "\n"),
    "both empty after prefix": (PFX, PFX),
    "answer without prefix": (PFX + POEM, POEM),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grade_matches_reference_exactly(name):
    response, answer = CASES[name]
    assert grade(response, answer, PFX) == reference(response, answer, PFX)


def test_expected_values_of_edge_cases():
    assert grade("\n\n  " + PFX + POEM, PFX + POEM, PFX) == (1.0, True)
    assert grade("", PFX + POEM, PFX) == (0.0, False)
    assert grade(PFX, PFX + POEM, PFX) == (0.0, True)
    assert grade(PFX, PFX, PFX) == (1.0, True)  # ratio of two empty strings
    assert grade("\x1c\xa0" + PFX + POEM, PFX + POEM, PFX) == (1.0, True)
    assert grade("\u200b" + PFX + POEM, PFX + POEM, PFX) == (0.0, False)
    leak = grade("I should find the poem.</think>\n\n" + PFX + POEM, PFX + POEM, PFX)
    assert leak == (0.0, False)
    doubled, matched = grade(PFX + PFX + POEM, PFX + POEM, PFX)
    assert matched and 0.0 < doubled < 1.0
    assert grade(PFX + POEM, PFX + POEM + "\n", PFX)[0] < 1.0  # the answer is not stripped


def test_gym_passes_leading_whitespace_where_the_card_grader_fails():
    response, answer = "\n\n" + PFX + POEM, PFX + POEM
    assert official_card_grader(response, answer, PFX) == 0.0
    assert grade(response, answer, PFX) == (1.0, True)


def test_autojunk_and_argument_order_are_kept():
    response, answer = CASES["runaway output"]
    assert len(answer) - len(PFX) >= 200  # autojunk applies to b only from 200 chars
    r, a = response.strip().removeprefix(PFX), answer.removeprefix(PFX)
    with_junk = difflib.SequenceMatcher(None, r, a).ratio()
    without_junk = difflib.SequenceMatcher(None, r, a, autojunk=False).ratio()
    swapped = difflib.SequenceMatcher(None, a, r).ratio()
    assert with_junk != without_junk and with_junk != swapped
    assert grade(response, answer, PFX)[0] == with_junk


def test_message_text_joins_output_text_of_message_items_only():
    response = {
        "output": [
            reasoning("thinking"),
            message("Xy", "12"),
            message("AbC", kind="refusal"),
            message("9Qz"),
        ]
    }
    assert message_text(response) == "Xy129Qz"


def test_message_text_reasoning_only_is_none_and_grades_zero():
    response = {"output": [reasoning(PFX + POEM)]}
    assert message_text(response) is None
    assert grade(message_text(response), PFX + POEM, PFX) == (0.0, False)
    assert message_text({"output": []}) is None
    assert message_text({"output": [message()]}) == ""


TOKENS = [*"ab c\n\t\xa0\x1c\u200b🦛é", PFX, PFX[:4]]
text = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(response=text, body=text)
def test_property_grade_equals_reference(response, body):
    answer = PFX + body
    assert grade(response, answer, PFX) == reference(response, answer, PFX)
