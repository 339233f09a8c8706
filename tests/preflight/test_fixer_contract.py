"""The fixer protocol (evalkit/preflight/fixes/__init__.py): a fixer either edits the Doc
and says so (True, or an unsafe fix's reason), or returns False and leaves the Doc as it
was. Each refusal here is called directly on the hit the engine would hand it, so a
fixer that claims a fix it did not make fails here, not only where the engine happens to
re-check the text."""

from __future__ import annotations

import pytest

from evalkit.config.textedit import Doc
from evalkit.preflight.fixes.engine import _items, _wanted
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV, FIXTURES
from .test_fix import REFUSED


def _fixture(code: str, name: str) -> str:
    return (FIXTURES / code / "fail" / f"{name}.yaml").read_text()


def _edited(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# refusals written here, each from a fixture that the fixer repairs, one fact changed
NEL102_CLASH = _edited(
    _fixture("NEL102", "top_level_runtime"),
    "  env_vars:\n    DUMMY_API_KEY: lit:dummy\n",
    "  env_vars:\n    DUMMY_API_KEY: lit:dummy\n    NEL_INVOCATION_ID: lit:fixed\n",
)  # evaluation.env_vars already names the variable, with another value
NEL010_FLOW = _edited(
    _fixture("NEL010", "first_task_without_env"),
    "evaluation:\n  tasks:\n    - name: lm-evaluation-harness.ifeval\n"
    "    - name: simple_evals.gpqa_diamond\n      env_vars:\n        HF_TOKEN: host:HF_TOKEN\n",
    "evaluation: {tasks: [{name: lm-evaluation-harness.ifeval}, {name: "
    "simple_evals.gpqa_diamond, env_vars: {HF_TOKEN: 'host:HF_TOKEN'}}]}\n",
)  # a flow mapping: no line to add env_vars on
CASES = [(code, _fixture(code, name), False) for code, name in sorted(REFUSED)]
CASES += [("NEL009", _fixture("NEL009", "unknown_task"), True)]  # unsafe: still no candidate
CASES += [("NEL102", NEL102_CLASH, False), ("NEL010", NEL010_FLOW, True)]


@pytest.mark.parametrize("code, text, unsafe", CASES)
def test_a_refusing_fixer_returns_false_and_leaves_the_doc_alone(code, text, unsafe):
    doc = Doc(text, "config.yaml")
    options = Options(env=FIXTURE_ENV, unsafe=unsafe)
    items = [i for i in _items(doc, options, set(), _wanted(doc, (), ())) if i.code == code]
    assert items, f"{code}: no hit to offer its fixer"
    for item in items:
        if item.fix.unsafe is not unsafe:
            continue
        before = doc.text
        assert item.fix.apply(doc, item.hit, item.ctx) is False, item.hit
        assert doc.text == before
