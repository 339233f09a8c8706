"""Issue 52: the NEL104 unsafe fix (`host:word` -> `lit:word`) on both sides of each refusal.

The fix writes a literal only for a lower-case word no variable of that name is set for.
The lower-case proxy variables are the exception shells and tools do set (curl, pip and
requests read `https_proxy`): on a machine that sets one only at launch time, a literal
`lit:https_proxy` would send the word instead of the proxy. Dropping that exemption
failed no test before (issue 52's break 8).
"""

from __future__ import annotations

import pytest

from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.fixes.nel104_literal_word import KNOWN_LOWER
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV

CONFIG = """\
defaults:
  - execution: local
  - deployment: none
  - _self_
execution:
  output_dir: /data/results
target:
  api_endpoint:
    model_id: vendor/small-instruct
    url: https://api.example.com/v1/chat/completions
    api_key_name: HF_TOKEN
evaluation:
  env_vars:
    HF_TOKEN: host:HF_TOKEN
    SOME_SETTING: host:{word}
  tasks:
    - name: simple_evals.mmlu
"""
PROXIES = sorted(KNOWN_LOWER)


def _fixed(word: str, env: dict[str, str] | None = None):
    options = Options(env=FIXTURE_ENV if env is None else env, unsafe=True)
    return fix_text(CONFIG.format(word=word), "config.yaml", options)


def _value(outcome) -> str:
    (line,) = [x for x in outcome.text.splitlines() if x.strip().startswith("SOME_SETTING:")]
    return line.split(":", 1)[1].strip()


def test_the_exempt_names_are_the_lower_case_proxy_variables():
    assert set(PROXIES) == {"http_proxy", "https_proxy", "no_proxy", "ftp_proxy", "all_proxy"}
    assert not set(PROXIES) & set(FIXTURE_ENV)  # unset here: only the exemption keeps them


def test_an_unset_lower_case_word_becomes_a_literal_saying_so():
    outcome = _fixed("false")
    assert _value(outcome) == "lit:false"
    (step,) = [f for f in outcome.fixed if f.rule == "NEL104"]
    assert "no variable 'false' is set" in step.note
    assert not [f for f in outcome.remaining if f.rule == "NEL104"]


@pytest.mark.parametrize("word", PROXIES)
def test_a_proxy_variable_stays_a_host_variable(word):
    outcome = _fixed(word)
    assert _value(outcome) == f"host:{word}"
    assert not [f for f in outcome.fixed if f.rule == "NEL104"]
    assert [f for f in outcome.remaining if f.rule == "NEL104"]  # still reported


def test_an_upper_case_name_stays_a_host_variable():
    assert _value(_fixed("HF_HOME")) == "host:HF_HOME"


def test_a_lower_case_name_set_in_the_environment_stays_a_host_variable():
    env = {**FIXTURE_ENV, "myvar": "1"}
    assert _value(_fixed("myvar", env)) == "host:myvar"
    assert _value(_fixed("myvar")) == "lit:myvar"


def test_the_safe_run_writes_no_literal():
    options = Options(env=FIXTURE_ENV, unsafe=False)
    outcome = fix_text(CONFIG.format(word="false"), "config.yaml", options)
    assert _value(outcome) == "host:false"
