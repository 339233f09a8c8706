"""Failure rates with two denominators (issue 49, point 5): response faults over unique
successful responses, runtime faults over expected trials, each a union over (item,
repeat), never added, and `unverified` (None) when the denominator is unknown.

On the bundled runs (tests/data/suite: real simple-evals stores; tests/data/outcomes: see
its PROVENANCE.md) and on tmp copies with faults injected.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.runs.outcomes import ItemResult, Outcome, TaskOutcomes
from evalkit.runs.run import load_runs
from test_simple_evals_accounting import _copy, _keep, _rewrite, _rows, _set_limit, _validate

DATA = Path(__file__).resolve().parent / "data"
SUITE = DATA / "suite"


def _outcomes(path: Path) -> TaskOutcomes:
    [run] = load_runs(path)
    found = task_outcomes(run)
    assert found is not None
    return found


def test_hle_rates_each_over_its_own_denominator():
    # 10 questions asked: 9 came back (one request failed); of those, 1 cut, 1 empty and
    # 2 reasoning-only are response faults; the failed judge call and the failed request
    # are runtime faults over the 10 trials
    rates = _outcomes(DATA / "outcomes" / "hle.0").rates()
    assert (rates["response"]["faults"], rates["response"]["of"]) == (4, 9)
    assert (rates["runtime"]["faults"], rates["runtime"]["of"]) == (2, 10)
    assert rates["runtime"]["rate"] == 0.2 and rates["runtime"]["verified"]


def test_lm_eval_runtime_rate_is_unverified_not_zero(run_cli):
    # the samples files do not say how many items the run was to make
    outcomes = _outcomes(DATA / "outcomes" / "lm_eval.0")
    rates = outcomes.rates()
    assert (rates["response"]["faults"], rates["response"]["of"]) == (12, 20)
    assert rates["runtime"]["rate"] is None and not rates["runtime"]["verified"]
    assert outcomes.as_dict()["rates"] == rates  # the JSON carries them (a new field)
    _, _, checks = _validate(run_cli, DATA / "outcomes" / "lm_eval.0")
    message = checks["item-outcomes"]["message"]
    assert "runtime faults 0 of unknown expected trials: unverified" in message
    assert "response faults 12/20 successful responses (60.00%)" in message


def test_the_same_item_failing_in_two_attempts_counts_once():
    # a resumed run that kept both attempts of item a (cut, then cut again) and of item
    # b (endpoint error, then judge error)
    items = [
        ItemResult("a", None, 0, 0.0, Outcome.TRUNCATED),
        ItemResult("a", None, 0, 0.0, Outcome.TRUNCATED),
        ItemResult("b", None, 0, 0.0, Outcome.ENDPOINT_ERROR),
        ItemResult("b", None, 0, 0.0, Outcome.JUDGE_ERROR),
        ItemResult("c", None, 0, 1.0, Outcome.SCORED),
        ItemResult("c", None, 1, 1.0, Outcome.SCORED),
    ]
    outcomes = TaskOutcomes("hle", items, expected=4)
    rates = outcomes.rates()
    assert (rates["response"]["faults"], rates["response"]["of"]) == (1, 4)
    assert (rates["runtime"]["faults"], rates["runtime"]["of"]) == (1, 4)


def test_a_zero_denominator_is_unverified():
    outcomes = TaskOutcomes("hle", [ItemResult("a", None, 0, 0.0, Outcome.MISSING)], expected=0)
    rates = outcomes.rates()
    assert rates["response"]["rate"] is None and rates["runtime"]["rate"] is None


def test_a_missing_item_is_a_runtime_fault_over_the_declared_list(tmp_path, run_cli):
    task = _copy(tmp_path)
    _set_limit(task, 60)
    _keep(task, set(range(59)))
    code, doc, checks = _validate(run_cli, task)
    message = checks["item-outcomes"]["message"]
    assert "runtime faults 1/60 expected trials (1.67%)" in message
    assert checks["item-outcomes"]["kind"] == "incomplete"


def test_response_faults_are_bounded_over_the_responses_not_all_items(tmp_path, run_cli):
    # 3 of 60 positions never written and 3 answers moved to reasoning_content: 3 of the
    # 57 responses (5.3 % > 5 %: invalid), where a share over all 60 items (5.0 %) was
    # within the bound and left the run only incomplete
    task = _copy(tmp_path)
    _set_limit(task, 60)
    rows = _rows(task)
    _keep(task, set(range(57)))
    for key in (0, 1, 2):
        row = rows[key]
        for message in row["convo"]:
            if message.get("role") == "assistant":
                message["reasoning_content"] = message.get("content")
                message["content"] = ""
        _rewrite(task, key, row)
    code, doc, checks = _validate(run_cli, task)
    check = checks["item-outcomes"]
    assert "reasoning_only 3" in check["message"] and "missing 3" in check["message"]
    assert "runtime faults 3/60 expected trials (5.00%)" in check["message"]
    assert check["kind"] == "invalid" and doc["verdict"] == "invalid", check["message"]


def test_compare_row_carries_both_rates_per_side(run_cli):
    code, out, _ = run_cli(
        "compare", SUITE / "baseline", SUITE / "candidate-reasoning", "--format", "json"
    )
    [row] = [t for t in json.loads(out)["tasks"] if "fault_rates" in t]
    base, cand = row["fault_rates"]["base"], row["fault_rates"]["cand"]
    assert (base["response"]["faults"], base["response"]["of"]) == (7, 198)
    assert (cand["response"]["faults"], cand["response"]["of"]) == (65, 198)
    assert cand["runtime"]["rate"] is None  # n_samples/limit do not fix the list
