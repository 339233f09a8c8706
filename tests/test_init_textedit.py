"""The line-preserving editor under `evalkit init`, checked against PyYAML's own reading."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config.textedit import Doc, yaml_scalar
from helpers.tier import examples

TEXT = """\
a:
  # about b
  b: ???          # aligned note
  c:
    d: 1
  e: >-
    one
    --flag 2
    three
f: x
"""


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.text(), st.integers(), st.booleans(), st.none()))
def test_scalars_read_back_as_written(value):
    assert yaml.safe_load(f"k: {yaml_scalar(value)}\n") == {"k": value}


def test_times_and_gres_stay_strings_for_yaml_1_1_readers():
    assert yaml_scalar("04:00:00") == '"04:00:00"'
    assert yaml_scalar("gpu:8") == "gpu:8"


def test_edits_touch_only_their_lines():
    doc = Doc(TEXT, "t.yaml")
    doc.set(("a", "b"), "filled")
    doc.set_flag(("a", "e"), "--flag", 4)
    doc.set_flag(("a", "e"), "--new", None, after="--flag")
    doc.add(("a", "c"), "g", {"h": "i"}, "why")
    doc.delete(("a", "c", "d"))
    data = yaml.safe_load(doc.text)
    assert data == {"a": {"b": "filled", "c": {"g": {"h": "i"}}, "e": "one --flag 4 --new three"},
                    "f": "x"}  # fmt: skip
    assert "  # about b\n  b: filled       # aligned note\n" in doc.text  # column kept
    assert doc.text.endswith("f: x\n")
