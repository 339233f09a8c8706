"""The lm-eval and HLE per-item readers and the run-level failure reader, on fixtures.

tests/data/outcomes/lm_eval.0 and lm_eval_failed.0 are real runs of nemo-evaluator 0.2.8
with nvidia-lm-eval 26.3 against a loopback stub (tools/dev/lm_eval_outcomes.py); hle.0
follows nvidia-hle 26.3's writers but was not run (tools/dev/hle_outcomes.py says why).
The GPQA task of the bundled pair carries real eval_factory_metrics.json output.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalkit.benchmarks import hle, lm_eval
from evalkit.benchmarks.adapter_cache import read_cache
from evalkit.benchmarks.harnesses import task_outcomes
from evalkit.benchmarks.run_failures import run_failures
from evalkit.errors import InputError
from evalkit.runs.outcomes import Outcome
from evalkit.runs.run import load_runs
from helpers.bundled import GPQA as GPQA_TASK
from helpers.bundled import task_dir

DATA = Path(__file__).resolve().parent / "data"
OUTCOMES = DATA / "outcomes"
GPQA = task_dir("baseline", GPQA_TASK)


def _run(path: Path):
    [run] = load_runs(path)
    return run


def test_lm_eval_every_outcome_class_from_the_real_harness():
    run = _run(OUTCOMES / "lm_eval.0")
    assert lm_eval.recognises(run) and not hle.recognises(run)
    outcomes = task_outcomes(run)
    assert outcomes.harness == "lm_eval"
    # the stub answers item n by n % 5: right, wrong, cut, reasoning only, no answer line
    assert outcomes.counts() == {"scored": 8, "truncated": 4, "reasoning_only": 4, "unparsed": 4}
    by_id = {item.item_id: item for item in outcomes.items}
    assert by_id["evalkit_tiny_math/0"].score == 1.0
    assert by_id["evalkit_tiny_math/1"].outcome is Outcome.SCORED
    assert by_id["evalkit_tiny_math/1"].score == 0.0
    assert by_id["evalkit_tiny_math/2"].finish_reason == "length"
    assert by_id["evalkit_tiny_math/3"].outcome is Outcome.REASONING_ONLY
    assert by_id["evalkit_tiny_math/4"].outcome is Outcome.UNPARSED
    # prompt_hash is sha256 of the prompt: two runs pair on (doc id, prompt)
    assert all(len(item.prompt_digest) == 64 for item in outcomes.items)
    # the scored mean of the items is the harness's headline (results.yml: 0.2)
    assert sum(item.score for item in outcomes.items) / len(outcomes.items) == pytest.approx(0.2)
    [truncated] = outcomes.run_failures
    assert truncated.outcome is Outcome.TRUNCATED and truncated.count == 4


def test_lm_eval_run_aborted_by_an_endpoint_error():
    # item 7 refused with vLLM-style HTTP 400 "maximum context length"; lm-eval retried
    # it and the run aborted (tools/dev/lm_eval_outcomes.py --failing)
    run = _run(OUTCOMES / "lm_eval_failed.0")
    assert task_outcomes(run) is None  # no samples were written
    failures = run_failures(run)
    kinds = [(f.outcome, f.count) for f in failures]
    assert (Outcome.MISSING, 1) in kinds
    [codes] = [f for f in failures if "response_stats count" in f.evidence]
    assert codes.count == 5 and "HTTP 400: 5" in codes.evidence
    [context] = [f for f in failures if "maximum context length (" in f.evidence]
    assert context.evidence.startswith("logs/client-5100001.log:")
    assert "API request failed" in context.evidence


def test_hle_every_outcome_class_from_the_real_harness():
    run = _run(OUTCOMES / "hle.0")
    assert hle.recognises(run) and not lm_eval.recognises(run)
    outcomes = task_outcomes(run)
    # question n: 0-3 answered, 4 cut, 5 judge call failed, 6 empty, 7-8 reasoning only,
    # 9 request failed (tools/dev/hle_outcomes.py)
    assert outcomes.counts() == {
        "scored": 4,
        "truncated": 1,
        "judge_error": 1,
        "unparsed": 1,
        "reasoning_only": 2,
        "endpoint_error": 1,
    }
    by_id = {item.item_id: item for item in outcomes.items}
    assert by_id["66fixture0005"].outcome is Outcome.JUDGE_ERROR
    assert by_id["66fixture0005"].score == 0.0 and 'scored "no"' in by_id["66fixture0005"].detail
    assert by_id["66fixture0004"].finish_reason == "length"
    # three empty answers, two with reasoning: one text, so the cache tells how many of
    # each, not which (adapter_cache.CacheIndex)
    empty = sorted(by_id[f"66fixture000{n}"].outcome.value for n in (6, 7, 8))
    assert empty == ["reasoning_only", "reasoning_only", "unparsed"]
    # the items give the harness's accuracy (results_hle_served-model.json: 0.2)
    assert sum(item.score for item in outcomes.items) / len(outcomes.items) == 0.2
    failures = {(f.outcome.value, f.count) for f in outcomes.run_failures}
    assert failures == {("endpoint_error", 1), ("truncated", 1)}


def test_real_metrics_of_the_bundled_gpqa_task_hold_no_failure():
    # nemo-evaluator 0.2.8 output: 198 of 198 successful, all stop, reasoning all finished
    assert run_failures(_run(GPQA)) == []


def test_metrics_counts_become_run_failures(tmp_path):
    task = tmp_path / "simple_evals.gpqa_diamond.1"
    shutil.copytree(GPQA, task)
    path = task / "artifacts" / "eval_factory_metrics.json"
    text = path.read_text()
    text = text.replace('"successful_count": 198', '"successful_count": 190')
    text = text.replace('"stop": 198', '"stop": 185,\n      "length": 5')
    text = text.replace('"200": 198', '"200": 190,\n      "500": 8')
    text = text.replace('"reasoning_unfinished_count": 0', '"reasoning_unfinished_count": 3')
    path.write_text(text)
    (task / "logs" / "client-5100001.log").write_text(
        "ok\nopenai.BadRequestError: This model's maximum context length is 4096 tokens.\n"
    )
    failures = {(f.outcome.value, f.count) for f in run_failures(_run(task))}
    assert failures == {
        ("endpoint_error", 8),
        ("truncated", 5),
        ("truncated", 3),
        ("endpoint_error", 1),
    }


def test_missing_results_is_a_run_failure(tmp_path):
    task = tmp_path / "simple_evals.gpqa_diamond.1"
    shutil.copytree(GPQA, task)
    (task / "artifacts" / "results.yml").unlink()
    [missing] = run_failures(_run(task))
    assert missing.outcome is Outcome.MISSING and "results.yml" in missing.evidence


def test_response_cache_is_read_without_writing_beside_it(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    cache_dir = task / "artifacts" / "cache" / "responses"
    before = sorted(p.name for p in cache_dir.iterdir())
    index = read_cache(task / "artifacts")
    assert index.responses == 20 and index.reasoning_only() == 4
    assert sorted(p.name for p in cache_dir.iterdir()) == before  # no -wal, -shm, lock


def test_a_malformed_samples_line_names_file_and_line(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    [samples] = (task / "artifacts" / "served-model").glob("samples_*.jsonl")
    lines = samples.read_text().splitlines(keepends=True)
    lines[2] = '{"doc_id": 2, "resps": [[\n'
    samples.write_text("".join(lines))
    with pytest.raises(InputError) as err:
        task_outcomes(_run(task))
    assert err.value.line == 3 and samples.name in str(err.value)


def test_a_samples_file_being_written_is_read_up_to_its_last_full_line(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    [samples] = (task / "artifacts" / "served-model").glob("samples_*.jsonl")
    samples.write_bytes(samples.read_bytes()[:-40])
    assert len(task_outcomes(_run(task)).items) == 19


def test_a_cache_that_is_not_sqlite_is_one_input_error(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    (task / "artifacts" / "cache" / "responses" / "cache.db").write_bytes(b"not a database\n" * 10)
    with pytest.raises(InputError) as err:
        task_outcomes(_run(task))
    assert "cache.db" in str(err.value)


def test_a_value_file_outside_the_cache_is_never_read(tmp_path):
    import sqlite3

    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "hle.0", task)
    secret = tmp_path / "secret.val"
    secret.write_text('{"choices": [{"message": {"content": ""}, "finish_reason": "length"}]}')
    db = task / "artifacts" / "cache" / "responses" / "cache.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE Cache SET filename = '../../../../secret.val', value = NULL")
    index = read_cache(task / "artifacts")
    assert index.by_text == {}  # every body pointed outside: none read


def test_a_malformed_judged_file_names_the_file(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "hle.0", task)
    (task / "artifacts" / "judged_hle_served-model.json").write_text('{"q": {"response": 3}}')
    with pytest.raises(InputError) as err:
        task_outcomes(_run(task))
    assert "judged_hle_served-model.json" in str(err.value)


def test_a_samples_link_out_of_the_run_is_refused(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    [samples] = (task / "artifacts" / "served-model").glob("samples_*.jsonl")
    outside = tmp_path / "elsewhere.jsonl"
    samples.rename(outside)
    samples.symlink_to(outside)
    with pytest.raises(InputError, match="leaves the run directory"):
        task_outcomes(_run(task))


def test_a_partial_response_cache_is_said(tmp_path):
    import sqlite3

    # nemo-evaluator 0.2.8 with use_caching: false keeps 5 responses (checked by a run
    # of tools/dev/lm_eval_outcomes.py with that setting); here the real cache is cut
    # to 5 rows the same way.
    task = tmp_path / "t"
    shutil.copytree(OUTCOMES / "lm_eval.0", task)
    db = task / "artifacts" / "cache" / "responses" / "cache.db"
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM Cache WHERE rowid > 5")
    conn.commit()
    conn.close()
    outcomes = task_outcomes(_run(task))
    [note] = outcomes.notes
    assert "holds 5 responses for 20 answers" in note and "use_caching: false" in note
    db.unlink()
    outcomes = task_outcomes(_run(task))
    assert "no adapter response cache" in outcomes.notes[0]
    # without the cache, the cut and the reasoning-only answers read as unparsed
    assert outcomes.counts() == {"scored": 8, "unparsed": 12}


def test_an_unfinished_think_block_is_truncated_even_when_scored():
    from evalkit.benchmarks.lm_eval.reader import classify

    # what the reasoning interceptor passes on for a reply cut inside its <think>
    cut = "<think>Adding 4 and 7 gives 11, so the answer is 11"
    assert classify(cut, ["11"], None)[0] is Outcome.TRUNCATED
    assert classify("<think>ok</think>The answer is 11", ["11"], None)[0] is Outcome.SCORED


@pytest.mark.parametrize(
    ("content", "finish", "healthy"),
    [
        ('"The answer is 4"', '"stop"', True),
        ('"The answer is 4"', '"length"', False),  # cut: decoded and indexed
        ("null", '"stop"', False),  # no content: decoded (reasoning only?)
        ('""', '"stop"', False),
        ('"\\n\\n"', '"stop"', False),  # may be only whitespace: decoded
        ('"A \\"finish_reason\\": \\"stop\\""', "null", False),  # the key inside a value
    ],
)
def test_healthy_answers_are_told_from_the_ends_of_the_body(content, finish, healthy):
    from evalkit.benchmarks.adapter_cache import plainly_healthy

    # vLLM's compact spelling, the reasoning between the two ends
    body = (
        '{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":'
        + content
        + ',"reasoning_content":"'
        + "think " * 400
        + '"},"finish_reason":'
        + finish
        + '}],"usage":{"completion_tokens":9}}'
    )
    assert plainly_healthy(body.encode()) is healthy
