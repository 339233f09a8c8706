"""Property tests: preflight never crashes, whatever YAML it is given.

Arbitrary YAML documents and random mutations of the shipped templates (and of the
fixture bases) must end with exit 0, 1 or 2 and a message, never an internal error.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.cli import main
from helpers.tier import examples

from .conftest import FIXTURES

REPO = Path(__file__).resolve().parents[2]
SEEDS = sorted(
    p for p in (REPO / "recipes" / "examples").rglob("*.yaml") if "next" not in p.name
) + sorted((FIXTURES / "_base").glob("*.yaml"))
SEED_TEXTS = [p.read_text(encoding="utf-8") for p in SEEDS]


def run_preflight(text: str | bytes, *extra: str) -> tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "config.yaml")
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        with open(path, "wb") as fh:
            fh.write(data)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["preflight", path, *extra])
    return code, out.getvalue(), err.getvalue()


def assert_handled(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), (code, err)
    assert "internal error" not in err, err
    if code == 2:
        assert err.startswith("evalkit preflight: error: "), err
    else:
        assert out.strip(), "a verdict is always printed"


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(
        ["???", "${HOME}", "${oc.env:X}", "10:00:00", "host:HF_TOKEN", "lit:1", "<PARSER>", "$${x}"]
    ),
)
KEYS = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            "defaults",
            "execution",
            "deployment",
            "evaluation",
            "tasks",
            "env_vars",
            "command",
            "nemo_gym",
            "params",
            "mounts",
            "walltime",
            "export",
            "name",
        ]
    ),
)
trees = st.recursive(
    scalars,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(KEYS, kids, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_arbitrary_yaml_documents(tree):
    assert_handled(*run_preflight(yaml.safe_dump(tree, allow_unicode=True)))


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_arbitrary_bytes(blob):
    assert_handled(
        *run_preflight(blob if isinstance(blob, bytes) else blob.encode("utf-8", "surrogatepass"))
    )


@st.composite
def mutated_template(draw):
    text = draw(st.sampled_from(SEED_TEXTS))
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "value", "indent", "insert"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "indent":
            lines[i] = " " * draw(st.integers(0, 6)) + lines[i].lstrip()
        elif op == "insert":
            lines.insert(i, draw(st.text(max_size=20)))
        elif ":" in lines[i]:
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {draw(scalars)!s}"
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_template(), st.booleans())
def test_mutated_templates(text, template):
    assert_handled(*run_preflight(text, *(["--template"] if template else [])))


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(SEED_TEXTS), st.text(max_size=30), st.text(max_size=30))
def test_random_overrides(text, key, value):
    assert_handled(*run_preflight(text, f"--override={key}={value}"))
