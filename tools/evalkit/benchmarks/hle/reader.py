"""Reading HLE's judged predictions into item outcomes (the format: benchmarks/hle/__init__.py).

The judged file is one JSON object; msgspec decodes it into Structs holding only the
fields used, so a question costs its response text and a few flags.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from evalkit.benchmarks.adapter import reply_digest
from evalkit.benchmarks.adapter_cache import (
    UNFINISHED_DETAIL,
    CacheIndex,
    confined,
    coverage_note,
    read_cache,
    read_sized,
    unfinished_reasoning,
)
from evalkit.benchmarks.run_failures import run_failures
from evalkit.errors import InputError
from evalkit.runs.outcomes import ItemResult, Outcome, TaskOutcomes
from evalkit.runs.run import Run

# The AA text-only question count (nvidia-hle 26.3 framework.yml: "2,684 text-only
# questions"), used when the run's config sets no limit_samples.
TEXT_ONLY_QUESTIONS = 2684
MAX_JUDGED_BYTES = 512 * 1024 * 1024  # 2684 answers of 16k tokens fit well inside


class _Judge(msgspec.Struct):
    correct: str | None = None
    api_error: bool | None = None


class _Prediction(msgspec.Struct):
    response: str | None = None
    judge_response: _Judge | None = None


_DECODER = msgspec.json.Decoder(dict[str, _Prediction])


def judged_file(artifacts: Path) -> Path | None:
    found = sorted(p for p in artifacts.glob("judged_hle_*.json") if p.is_file())
    return found[-1] if found else None


def recognises(run: Run) -> bool:
    return judged_file(run.artifacts_dir) is not None


def classify(
    prediction: _Prediction, cache: CacheIndex | None
) -> tuple[Outcome, float | None, str | None, str | None]:
    """(outcome, score, finish_reason, detail) for one judged question."""
    judge = prediction.judge_response
    score = 1.0 if judge is not None and "yes" in (judge.correct or "") else 0.0
    cached = cache.lookup(prediction.response) if cache is not None else None
    finish = cached.finish_reason if cached else None
    if judge is None:
        return Outcome.JUDGE_ERROR, None, finish, "never judged"
    if judge.api_error:
        return Outcome.JUDGE_ERROR, score, finish, 'the judge call failed; scored "no"'
    if finish == "length":
        return Outcome.TRUNCATED, score, finish, "finish_reason length (cut at the output limit)"
    if unfinished_reasoning(prediction.response or ""):
        return Outcome.TRUNCATED, score, finish, UNFINISHED_DETAIL
    if not (prediction.response or "").strip():
        if cached is not None and cached.has_reasoning:
            detail = "empty content; the answer is in reasoning_content"
            return Outcome.REASONING_ONLY, score, finish, detail
        return Outcome.UNPARSED, score, finish, "empty response"
    return Outcome.SCORED, score, finish, None


def read_outcomes(run: Run) -> TaskOutcomes:
    path = judged_file(run.artifacts_dir)
    assert path is not None  # recognises() said so
    try:
        judged = _DECODER.decode(read_sized(confined(path, run.artifacts_dir), MAX_JUDGED_BYTES))
    except RecursionError:
        raise InputError("JSON nesting too deep", path) from None
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise InputError(f"not HLE's judged predictions ({err})", path) from None
    cache = read_cache(run.artifacts_dir)
    items = []
    for qid, prediction in judged.items():
        outcome, score, finish, detail = classify(prediction, cache)
        reply = reply_digest(prediction.response, None)
        items.append(ItemResult(qid, None, 0, score, outcome, finish, detail, reply=reply))
    # limit_samples takes the first questions of the set, so no more than it holds are
    # asked, whatever the config declares.
    asked = min(run.settings_or_empty.limit or TEXT_ONLY_QUESTIONS, TEXT_ONLY_QUESTIONS)
    # Questions whose request failed leave no id behind: counted, scored 0 as the harness
    # does (it divides by every question asked).
    for n in range(max(asked - len(items), 0)):
        detail = "no answer written (the request failed)"
        items.append(
            ItemResult(f"unanswered/{n}", None, 0, 0.0, Outcome.ENDPOINT_ERROR, None, detail)
        )
    note = coverage_note(cache, len(judged))
    source = str(path.relative_to(run.artifacts_dir))
    outcomes = TaskOutcomes("hle", items, run_failures(run), source, [note] if note else [])
    outcomes.expected = asked  # one trial per question asked
    return outcomes


__all__ = ["classify", "judged_file", "read_outcomes", "recognises"]
