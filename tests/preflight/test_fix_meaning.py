"""`preflight --fix` keeps meaning: the engine's proof, its batches and the launcher's view.

Each case here was a wrong fix before the engine proved its batches (issue 30, item 2):
a fix that changes what another key resolves to is refused, the finding stays, and the
real 0.2.6 dry-run sees the refusal instead of a config that runs with other values.
"""

from __future__ import annotations

import pytest

from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.fixes.meaning import changed_outside, meaning
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV, FIXTURES

BASE = (FIXTURES / "_base" / "generic.yaml").read_text()
OPTIONS = Options(env=FIXTURE_ENV)
SHOTS = "        max_retries: 10\n"


def _text(env_block: str, params_extra: str = "") -> str:
    text = BASE.replace(
        "    DUMMY_API_KEY: lit:dummy\n", "    DUMMY_API_KEY: lit:dummy\n" + env_block
    )
    return text.replace(SHOTS, SHOTS + params_extra)


def _resolved(text: str, path: tuple):
    return meaning(text, "c.yaml", (), FIXTURE_ENV)[path][1]


NUM_FEWSHOT = ("evaluation", "nemo_evaluator_config", "config", "params", "num_fewshot")
CASES = {
    "interpolated": _text(
        "    NUM_SHOTS: 5\n", "        num_fewshot: ${evaluation.env_vars.NUM_SHOTS}\n"
    ),
    "scalar_alias": _text("    NUM_SHOTS: &shots 5\n", "        num_fewshot: *shots\n"),
    "map_alias": _text(
        "    NUM_SHOTS: 5\n",
        "        extra: *ev\n        num_fewshot: ${.extra.NUM_SHOTS}\n",
    ).replace("  env_vars:\n    DUMMY_API_KEY", "  env_vars: &ev\n    DUMMY_API_KEY", 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fix_that_changes_another_key_is_refused(name):
    text = CASES[name]
    assert _resolved(text, NUM_FEWSHOT) == 5
    outcome = fix_text(text, "c.yaml", OPTIONS)
    assert _resolved(outcome.text, NUM_FEWSHOT) == 5  # was "lit:5" after the old fix
    assert "NEL101" not in {f.rule for f in outcome.fixed}
    assert [f for f in outcome.remaining if f.rule == "NEL101"]  # preflight still says so


def test_other_fixes_of_the_batch_are_kept():
    text = CASES["interpolated"].replace(
        "    NUM_SHOTS: 5\n", "    NUM_SHOTS: 5\n    VLLM_LOGGING: 1\n    OTHER: /a/b\n"
    )
    text = text.replace('  walltime: "04:00:00"', "  walltime: 10:00:00")
    outcome = fix_text(text, "c.yaml", OPTIONS)
    assert sorted(f.path for f in outcome.fixed) == [
        "evaluation.env_vars.OTHER",
        "evaluation.env_vars.VLLM_LOGGING",
        "execution.walltime",
    ]
    assert "    NUM_SHOTS: 5\n" in outcome.text


def test_changed_outside_names_the_key_and_spares_owned_ones():
    text = CASES["interpolated"]
    after = text.replace("NUM_SHOTS: 5", "NUM_SHOTS: lit:5")
    before_m, after_m = (meaning(t, "c.yaml", (), FIXTURE_ENV) for t in (text, after))
    owned = [("evaluation", "env_vars", "NUM_SHOTS")]
    assert changed_outside(before_m, after_m, owned) == [NUM_FEWSHOT]
    assert changed_outside(before_m, before_m, owned) == []


def test_a_move_into_an_empty_default_map_is_its_own_key():
    # deployment.env_vars is {} in the bundled vllm defaults: gaining a child is no change
    base = BASE.replace("  env_vars:\n    HF_TOKEN: host:HF_TOKEN\n", "", 1)
    served = "  served_model_name: model-fp8\n"
    moved = base.replace(served, served + "  env_vars:\n    A: lit:1\n", 1)
    before_m, after_m = (meaning(t, "c.yaml", (), FIXTURE_ENV) for t in (base, moved))
    assert changed_outside(before_m, after_m, [("deployment", "env_vars", "A")]) == []
    assert changed_outside(before_m, after_m, []) != []


def test_three_hundred_findings_are_fixed_in_one_run_and_a_second_changes_nothing():
    lines = "".join(f"    VAR_{i}: {i}  # note {i}\n" for i in range(300))
    text = BASE.replace("    DUMMY_API_KEY: lit:dummy\n", "    DUMMY_API_KEY: lit:dummy\n" + lines)
    first = fix_text(text, "c.yaml", OPTIONS)
    assert len(first.fixed) == 300
    assert not [f for f in first.remaining if f.rule == "NEL101"]
    second = fix_text(first.text, "c.yaml", OPTIONS)
    assert second.fixed == [] and second.text == first.text


def test_nel005_moves_the_comments_with_the_values():
    text = BASE.replace(
        "    mount_home: false\n",
        "    mount_home: false\n"
        "  env_vars:\n"
        "    # offline once the cache is warm\n"
        "    deployment:\n"
        "      HF_HUB_OFFLINE: lit:0  # flip to 1 after the first run\n"
        "    evaluation:  # the client side\n"
        "      # datasets too\n"
        "      HF_DATASETS_OFFLINE: lit:0\n",
    )
    outcome = fix_text(text, "c.yaml", OPTIONS)
    assert [f.rule for f in outcome.fixed] == ["NEL005"]
    for comment in ("offline once the cache is warm", "flip to 1 after the first run",
                    "the client side", "datasets too"):  # fmt: skip
        assert comment in outcome.text
    lines = outcome.text.split("\n")
    at = lines.index("    HF_HUB_OFFLINE: lit:0  # flip to 1 after the first run")
    assert lines[at - 1] == "    # offline once the cache is warm"
    at = lines.index("    HF_DATASETS_OFFLINE: lit:0")
    assert lines[at - 2 : at] == ["    # the client side", "    # datasets too"]
