"""The trust checks' thresholds and conditions, each on both sides (issue 52, the
`comparison` mutation target): response reuse at its count and share limits, greedy
decoding, a one-sided record, the NeMo Gym version, which gaps --accept can waive. The
checks are called as compare calls them, on replies and records built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.comparison import trust
from evalkit.comparison.task_trust import TrustSide, reuse_check
from evalkit.runs.run import Fingerprint as Reply


def _replies(n: int, same: int, *, ids: bool = True) -> tuple[dict, dict]:
    """N paired replies, the first SAME byte-identical on both sides, every id distinct."""
    base = {(i, 0): Reply(f"b{i}" if ids else None, b"x%d" % i) for i in range(n)}
    cand = {
        (i, 0): Reply(f"c{i}" if ids else None, b"x%d" % i if i < same else b"y%d" % i)
        for i in range(n)
    }
    return base, cand


@pytest.mark.parametrize(
    "n, same, status",
    [
        (100, 3, "fail"),  # 3 of 100: at the count limit, past 2 %
        (100, 2, "pass"),  # under the count limit, whatever the share
        (150, 3, "pass"),  # 3 of 150 is exactly 2 %: not past it
        (149, 3, "fail"),  # 3 of 149 is past 2 %
    ],
)
def test_identical_replies_are_reuse_from_three_and_past_two_percent(n, same, status):
    base, cand = _replies(n, same)
    check = trust.check_reuse(base, cand)
    assert (check.status, check.counts["identical_nontrivial"]) == (status, same)
    assert check.counts["compared_nontrivial"] == n


def test_a_reply_without_its_digest_on_one_side_is_not_compared():
    base, cand = _replies(10, 10)
    cand = {slot: Reply(r.response_id, None) for slot, r in cand.items()}  # exact answers
    check = trust.check_reuse(base, cand)
    assert check.counts["compared_nontrivial"] == 0 and check.status == "pass"


@pytest.mark.parametrize(
    "temperatures, ids, status",
    [
        ((0, 0), True, "note"),  # greedy on both sides, every reply has its id: agreement
        ((0, 0), False, "unverified"),  # greedy, but agreement cannot be told from reuse
        ((1, 0), True, "fail"),  # one side samples: reuse
        ((0, 0.6), True, "fail"),
    ],
)
def test_greedy_decoding_on_both_sides_only_softens_identical_replies(temperatures, ids, status):
    base_replies, cand_replies = _replies(50, 50, ids=ids)

    def side(replies, temperature):
        return TrustSide(path=None, provenance={}, sampling={"temperature": temperature},
                         fingerprints=replies, responses_source="rollouts")  # fmt: skip

    check = reuse_check(side(base_replies, temperatures[0]), side(cand_replies, temperatures[1]))
    assert check.status == status, check.message


@pytest.mark.parametrize(
    "base, cand, status",
    [
        ("0.7.0", "0.7.0", "pass"),
        ("0.7.0", "0.8.0", "fail"),
        ("0.7.0", None, None),  # one side unrecorded: no gym-version check from provenance
        (None, None, None),
    ],
)
def test_the_gym_version_is_compared_only_when_both_sides_record_it(base, cand, status):
    checks = trust.check_provenance({"gym_version": base}, {"gym_version": cand})
    found = [c.status for c in checks if c.id == "gym-version"]
    assert found == ([status] if status else [])


def test_a_gym_version_on_one_side_only_is_unverified_naming_that_side():
    from evalkit.comparison.task_trust import all_checks

    def side(version, name):
        return TrustSide(path=Path(name), provenance={"gym_version": version}, sampling={})

    for base, cand, where in (
        ("0.7.0", None, "on the candidate"),
        (None, "0.7.0", "on the baseline"),
    ):
        checks = all_checks(side(base, "base"), side(cand, "cand"))
        (check,) = [c for c in checks if c.id == "gym-version"]
        assert check.status == "unverified" and where in check.message


def test_a_passing_sampling_check_names_both_sides_sources():
    (check,) = trust.check_sampling(
        {"temperature": 0.6}, {"temperature": 0.6}, ("temperature",), ("base.yml", "cand.yml")
    )
    assert check.status == "pass"
    assert (check.counts["base_source"], check.counts["cand_source"]) == ("base.yml", "cand.yml")


@pytest.mark.parametrize(
    "status, acceptable, waived",
    [
        ("unverified", False, True),
        ("fail", True, True),  # a difference declared acceptable (a serving image)
        ("fail", False, False),  # another measurement: never waived
        ("pass", True, False),
        ("note", True, False),
    ],
)
def test_accept_waives_only_gaps_and_acceptable_differences(status, acceptable, waived):
    counts = {"acceptable": True} if acceptable else {}
    check = trust.TrustCheck("serving-image", status, "m", counts)
    (out,) = trust.waived([check], frozenset({"serving-image"}))
    assert (out.status == "accepted") is waived


def _fingerprint(**fields):
    from evalkit.runs.configview import FieldValue
    from evalkit.runs.fingerprint import Fingerprint

    return Fingerprint({k: FieldValue(v, f"{k}.yml") for k, v in fields.items()})


@pytest.mark.parametrize(
    "field, base, cand, status, acceptable",
    [
        ("images", ["vllm:0.26.0"], ["vllm:0.26.1"], "fail", True),  # needs_acceptance
        ("system_prompt", "a", "b", "fail", False),  # not_comparable: another task
        ("reasoning_parser", "a", "b", "warn", False),  # a warning, nothing to waive
    ],
)
def test_only_a_difference_that_needs_acceptance_can_be_accepted(
    field, base, cand, status, acceptable
):
    from evalkit.comparison.fingerprint_checks import fingerprint_checks

    def of_field(checks):
        (check,) = [c for c in checks if c.counts["field"] == field]
        return check

    pair = _fingerprint(**{field: base}), _fingerprint(**{field: cand})
    check = of_field(fingerprint_checks(*pair)[0])
    assert (check.status, check.counts.get("acceptable", False)) == (status, acceptable)
    after = of_field(fingerprint_checks(*pair, accepted=frozenset({field}))[0])
    assert (after.status == "accepted") is acceptable
    assert f"(base {field}.yml; candidate {field}.yml)" in check.message


def test_the_bundled_gpqa_pair_reads_replies_from_the_adapter_cache_and_notes_no_repeats(
    run_cli,
):
    """simple-evals keeps its replies in the adapter's response cache (a Gym run's are its
    rollouts); no task's items repeat content, so no averaging note."""
    import json

    from helpers.suite_edits import SUITE

    code, out, _ = run_cli("compare", SUITE / "baseline", SUITE / "candidate", "--format",
                           "json", "--bootstrap", "200")  # fmt: skip
    rows = json.loads(out)["tasks"]
    (row,) = [r for r in rows if r["benchmark"] == "gpqa"]
    (reuse,) = [c for c in row["trust"] if c["id"] == "response-reuse"]
    assert reuse["message"].startswith("adapter response cache (cache/responses/cache.db): ")
    assert not [n for r in rows for n in r["notes"] if "repeat another item's content" in n]


@pytest.mark.parametrize(
    "name, benchmark, shown",
    [
        ("simple_evals.gpqa_diamond.0", "gpqa", "gpqa"),  # the benchmark's own label
        ("aime.0", "hle", "hle"),  # a label sorting after the launcher's name
        ("nemo_gym.0", "nemo_gym.0/mrcr_1m", "nemo_gym/mrcr_1m"),  # name plus variant
    ],
)
def test_a_task_pairs_by_its_label_never_its_index(name, benchmark, shown):
    from types import SimpleNamespace

    from evalkit.comparison.pairing import aliases, label

    task = SimpleNamespace(view=SimpleNamespace(name=name), benchmark=benchmark, headline=None)
    assert label(task) == shown
    assert shown in aliases(task)


def test_a_gate_key_may_name_a_dotted_task_without_its_harness():
    from types import SimpleNamespace

    from evalkit.comparison.pairing import aliases

    task = SimpleNamespace(
        view=SimpleNamespace(name="bigcode-evaluation-harness.humaneval.instruct.0"),
        benchmark="humaneval",
        headline=None,
    )
    assert {"humaneval.instruct", "bigcode-evaluation-harness.humaneval.instruct"} <= aliases(task)


def test_the_sampling_record_names_each_source_once():
    from evalkit.comparison.task_trust import sampling_of
    from evalkit.runs.configview import FieldValue
    from evalkit.runs.fingerprint import Fingerprint

    same = Fingerprint(
        {"temperature": FieldValue(0.6, "a.yml"), "top_p": FieldValue(0.95, "a.yml")}
    )
    two = Fingerprint({"temperature": FieldValue(0.6, "a.yml"), "top_p": FieldValue(0.95, "b.yml")})
    assert sampling_of(same) == ({"temperature": 0.6, "top_p": 0.95}, "a.yml")
    assert sampling_of(two)[1] == "a.yml, b.yml"
    assert sampling_of(None) == ({}, None)
