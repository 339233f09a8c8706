"""The documented context (issue 14): variant choice from the model card, not config.json.

The worked example is the golden MRCR run's model family: a Nemotron 3 Nano-shaped hybrid
whose config.json says max_position_embeddings 262144 while its card documents 1M, served
with config_n3_1m.yaml at --max-model-len 1100000 and VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
The configs are the NEL602/NEL603 golden fixtures (tests/preflight/make_fixtures.py).
"""

from __future__ import annotations

import json

import pytest

from evalkit.benchmarks.mrcr.variants import choose_variant
from evalkit.checkpoint import load_checkpoint
from evalkit.errors import InputError
from evalkit.preflight.runner import Options, check_file

from .conftest import FIXTURE_ENV, FIXTURES

HYBRID = FIXTURES / "_checkpoints" / "hybrid_256k_card_1m"
GOLDEN = FIXTURES / "NEL603" / "pass" / "golden_card_1m.yaml"
NO_OVERRIDE = FIXTURES / "NEL602" / "fail" / "card_1m_no_override.yaml"
V128 = FIXTURES / "NEL603" / "fail" / "128k_on_card_1m.yaml"
CARD_1M = 1_048_576


def findings(config, context=None, checkpoint=HYBRID):
    ckpt = load_checkpoint(checkpoint, documented_context=context)
    return check_file(str(config), Options(checkpoint=ckpt, env=dict(FIXTURE_ENV)))


def by_rule(found, *codes):
    return [(f.rule, f.severity) for f in found if f.rule in codes]


# Rules about the served length and the variant; the base config also draws NEL207 (the
# launcher's bundled haproxy:latest), which has nothing to do with context.
CONTEXT_RULES = ("NEL302", "NEL408", "NEL409", "NEL602", "NEL603", "NEL604")


def test_golden_with_documented_context_has_no_error_or_warning():
    found = findings(GOLDEN, CARD_1M)
    assert [f for f in found if f.severity == "error"] == []
    assert by_rule(found, *CONTEXT_RULES) == []


def test_golden_without_the_override_is_an_error():
    found = findings(NO_OVERRIDE, CARD_1M)
    assert ("NEL602", "error") in by_rule(found, "NEL602")
    # The variant itself fits the documented context: only the serving flag is wrong.
    assert by_rule(found, "NEL603") == []


def test_override_without_documented_context_is_a_warning_naming_the_card():
    found = findings(GOLDEN)
    hits = [f for f in found if f.rule == "NEL603"]
    assert [h.severity for h in hits] == ["warning"]
    assert "262144" in hits[0].message and "model card" in hits[0].message
    assert "--context" in hits[0].fix
    assert [f for f in found if f.severity == "error"] == []


def test_no_override_and_no_documented_context_is_an_error():
    found = findings(NO_OVERRIDE)
    assert ("NEL603", "error") in by_rule(found, "NEL603")


def test_128k_variant_for_a_card_1m_model_warns_that_a_larger_variant_fits():
    found = findings(V128, CARD_1M)
    hits = [f for f in found if f.rule == "NEL603"]
    assert [h.severity for h in hits] == ["warning"]
    assert "config_n3_1m.yaml also fits the documented context 1048576" in hits[0].message
    # From config.json alone the 128k variant is the right one: only a note.
    alone = [f for f in findings(V128) if f.rule == "NEL603"]
    assert [h.severity for h in alone] == ["info"]
    assert "--context" in alone[0].fix


def test_1m_variant_beyond_a_documented_128k_is_an_error():
    dense = FIXTURES / "_checkpoints" / "dense_128k"
    found = findings(GOLDEN, 131072, checkpoint=dense)
    hits = [f for f in found if f.rule == "NEL603"]
    assert [h.severity for h in hits] == ["error"]
    assert "documents 131072" in hits[0].message
    assert "config_n3_128k.yaml" in hits[0].fix


@pytest.mark.parametrize(
    ("documented", "mpe", "config", "length", "override"),
    [
        (CARD_1M, 262144, "config_n3_1m.yaml", 1_100_000, True),  # the golden family
        (None, 262144, "config_n3_128k.yaml", 262144, False),  # config.json alone
        (CARD_1M, CARD_1M, "config_n3_1m.yaml", 1_100_000, True),
        (131072, 131072, "config_n3_128k.yaml", 182496, True),  # cap + answer room
        (262144, 262144, "config_n3_128k.yaml", 262144, False),
    ],
)
def test_choose_variant(documented, mpe, config, length, override):
    choice = choose_variant(documented, mpe)
    assert choice.variant.config == config
    assert (choice.max_model_len, choice.needs_long_override) == (length, override)
    assert ("VLLM_ALLOW_LONG_MAX_MODEL_LEN" in choice.reason) == override


def test_no_variant_below_the_128k_cap():
    assert choose_variant(65536, 65536) is None
    assert choose_variant(None, None) is None


def test_context_source_says_which_value_and_why():
    ckpt = load_checkpoint(HYBRID)
    assert ckpt.context.tokens == 262144 and not ckpt.context.documented
    assert "config.json max_position_embeddings" in ckpt.context.explanation
    documented = load_checkpoint(HYBRID, documented_context=CARD_1M).context
    assert documented.tokens == CARD_1M and documented.documented
    assert "model card" in documented.explanation and "262144" in documented.explanation
    with pytest.raises(InputError):
        _ = load_checkpoint(HYBRID, documented_context=0).context


def test_cli_context_option(run_cli):
    code, out, err = run_cli(
        "preflight", GOLDEN, "--checkpoint", HYBRID, "--context", CARD_1M, "--format", "json"
    )
    assert code == 0, out + err
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert "NEL603" not in rules
    code, out, _ = run_cli("preflight", GOLDEN, "--checkpoint", HYBRID, "--format", "json")
    assert code == 0  # a warning alone does not fail the run (without --strict)
    assert "NEL603" in {f["rule"] for f in json.loads(out)["findings"]}


def _rules(run_cli, config, *argv):
    code, out, err = run_cli("preflight", config, *argv, "--format", "json")
    assert code in (0, 1), err
    return code, [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]]


def test_cli_context_alone_runs_the_context_rules(run_cli):
    # issue 25: an agent reviewing a config without the checkpoint's files at hand still
    # gets the variant checked against the model card's figure
    code, found = _rules(run_cli, GOLDEN, "--context", "131072")
    assert code == 1 and ("NEL603", "error") in found  # 1M variant, 128k card
    _, found = _rules(run_cli, V128, "--context", CARD_1M)
    assert ("NEL603", "warning") in found  # the 1M variant fits the card too
    _, found = _rules(run_cli, GOLDEN, "--context", CARD_1M)
    assert [r for r, _ in found if r.startswith("NEL60")] == []
    # NEL602/NEL604 read config.json: without --checkpoint they do not run
    _, found = _rules(run_cli, NO_OVERRIDE, "--context", "131072")
    assert {r for r, _ in found} & {"NEL602", "NEL604"} == set()
    # and without --context the variant is not checked at all
    _, found = _rules(run_cli, GOLDEN)
    assert "NEL603" not in {r for r, _ in found}


def test_cli_context_must_be_positive(run_cli):
    code, out, err = run_cli("preflight", GOLDEN, "--context", "0")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--context" in err
