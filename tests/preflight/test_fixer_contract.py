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
NEL001_QUOTED = _edited(
    _fixture("NEL001", "bash_default_syntax"),
    "  pre_cmd: |\n    export CACHE=${CACHE_DIR:-cache}\n",
    '  pre_cmd: "export CACHE=${CACHE_DIR:-cache}"\n',
)  # in a double-quoted scalar a backslash starts a YAML escape: no safe escape to add
NEL404_LITERAL = _edited(
    _fixture("NEL404", "max_output_tokens"),
    "                collect_rollout_params: >-\n",
    "                collect_rollout_params: |-\n",
)  # a literal block: each line is a shell line, the override cannot be edited in place
NEL404_QUOTED = _edited(
    _fixture("NEL404", "max_output_tokens"),
    "                collect_rollout_params: >-\n"
    '                  "+config_paths=[responses_api_models/vllm_model/configs/vllm_model.yaml,'
    'benchmarks/mrcr/config_n3_1m.yaml]"\n'
    "                  ++split=benchmark\n"
    "                  ++responses_create_params.temperature={{config.params.temperature}}\n"
    "                  ++responses_create_params.top_p={{config.params.top_p}}\n"
    "                  ++responses_create_params.max_output_tokens=32768\n",
    '                collect_rollout_params: "++split=benchmark"\n',
)  # one quoted line without the override: a word added after the quote is not inside it
NEL001_ESCAPED_TOO = _edited(
    _fixture("NEL001", "bash_default_syntax"),
    "    export CACHE=${CACHE_DIR:-cache}\n",
    "    export CACHE=${CACHE_DIR:-cache}\n    echo \\${CACHE_DIR}\n",
)  # the name is escaped once already: which use the shell should see is not certain
NEL009_FLOW_GONE = _edited(
    _fixture("NEL009", "unknown_task"), "    - name: gpqa_diamondd\n", "    - {name: aa_scicode}\n"
)  # a dropped task whose container would go on a line of its own: the task is a flow map
CASES = [(code, _fixture(code, name), False) for code, name in sorted(REFUSED)]
CASES += [("NEL009", _fixture("NEL009", "unknown_task"), True)]  # unsafe: still no candidate
CASES += [("NEL102", NEL102_CLASH, False), ("NEL010", NEL010_FLOW, True)]
CASES += [("NEL001", NEL001_QUOTED, False), ("NEL404", NEL404_LITERAL, False)]
CASES += [("NEL404", NEL404_QUOTED, False), ("NEL001", NEL001_ESCAPED_TOO, False)]
# unsafe fixers offered a hit of their rule that is not theirs: NEL005's multiple_instances
# fixer gets the execution.env_vars hit, NEL104's the oc.env hit outside any env_vars
CASES += [("NEL005", _fixture("NEL005", "execution_env_vars"), True)]
CASES += [("NEL104", _fixture("NEL104", "oc_env_unset"), True), ("NEL009", NEL009_FLOW_GONE, True)]


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


def test_a_fixer_that_raises_is_a_refusal_and_the_others_still_run(monkeypatch):
    """An EvalkitError inside one fixer (an edit textedit cannot make) leaves the text as it
    was for that hit; the round goes on with the next."""
    import dataclasses

    import evalkit.preflight.fixes as registry
    from evalkit.errors import EvalkitError
    from evalkit.preflight.fixes.engine import fix_text

    def broken(doc, hit, ctx):
        doc.replace_text(doc.text + "# half an edit\n")
        raise EvalkitError("cannot edit here")

    fixer = registry.all_fixers()["NEL102"]
    monkeypatch.setitem(registry._FIXERS, "NEL102", dataclasses.replace(fixer, apply=broken))
    text = _fixture("NEL102", "top_level_runtime").replace(
        '  walltime: "04:00:00"', "  walltime: 10:00:00"
    )
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert {f.rule for f in outcome.fixed} == {"NEL202"}
    assert "# half an edit" not in outcome.text
    assert any(f.rule == "NEL102" for f in outcome.remaining)
