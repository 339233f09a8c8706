"""Reading lm-eval's samples files into item outcomes, one line alive at a time.

Each line is decoded with msgspec into a Struct that declares only the fields used (the
document, the arguments and the prompt are skipped, never built), with the file's metric
names added as fields once the first line has named them. Of a task's filters the first
one written counts (lm-eval writes a task's lines filter by filter, in its filter order).

An item's outcome, first cause that applies (joined to the adapter's response cache by
the answer text for finish_reason and reasoning; benchmarks/adapter_cache.py):
truncated (finish_reason "length"), reasoning_only (empty content, reasoning present),
unparsed (an empty answer, or a filter that extracted nothing: lm-eval's "[invalid]"),
else scored. Loglikelihood tasks have no generated text and are all scored. A task
with repeats keeps one line per document with its metric over them; its first
generation is the one classified.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from evalkit.benchmarks.adapter import reply_digest
from evalkit.benchmarks.adapter_cache import (
    UNFINISHED_DETAIL,
    CacheIndex,
    confined,
    coverage_note,
    read_cache,
    unfinished_reasoning,
)
from evalkit.benchmarks.run_failures import run_failures
from evalkit.errors import InputError
from evalkit.inputs import iter_jsonl
from evalkit.runs.outcomes import ItemResult, Outcome, TaskOutcomes
from evalkit.runs.run import Run

SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.jsonl$")
NO_EXTRACTION = ("", "[invalid]")  # lm-eval's regex filter fallback is "[invalid]"


class _Head(msgspec.Struct):
    metrics: list[str] = []


def samples_files(artifacts: Path) -> list[tuple[str, Path]]:
    """(task, newest samples file) per task, under artifacts/ or one directory below
    (the sanitized model name); a re-run's older files are left out."""
    newest: dict[str, tuple[str, Path]] = {}
    for path in sorted([*artifacts.glob("samples_*.jsonl"), *artifacts.glob("*/samples_*.jsonl")]):
        match = SAMPLES.match(path.name)
        if match and path.is_file():
            task, date = match.group("task"), match.group("date")
            if task not in newest or date > newest[task][0]:
                newest[task] = (date, path)
    return [(task, path) for task, (_date, path) in sorted(newest.items())]


def recognises(run: Run) -> bool:
    return bool(samples_files(run.artifacts_dir))


def _sample_type(metrics: list[str]) -> type:
    fields = [
        ("doc_id", Any, None),
        ("filter", Any, None),
        ("prompt_hash", Any, None),
        ("resps", Any, None),
        ("filtered_resps", Any, None),
    ] + [(name, Any, None) for name in metrics if name not in {"doc_id", "filter"}]
    return msgspec.defstruct("Sample", fields, kw_only=True)


def _first_text(value: Any) -> str | None:
    """The first generated text in lm-eval's nested lists (None: no text, loglikelihood)."""
    try:  # the usual shapes, [[text]] and [text], without a loop
        first = value[0]
        if type(first) is str:
            return first
        if type(first[0]) is str:
            return first[0]
    except (TypeError, IndexError, KeyError):
        pass
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _score(sample: Any, metrics: list[str]) -> float | None:
    for name in metrics:
        value = getattr(sample, name, None)
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, (int, float)):
            return float(value)
    return None


def classify(
    raw: str | None, extracted: Any, cache: CacheIndex | None
) -> tuple[Outcome, str | None, str | None]:
    """(outcome, finish_reason, detail) for one generated answer."""
    if raw is None:
        return Outcome.SCORED, None, None  # loglikelihood: nothing was generated
    cached = cache.lookup(raw) if cache is not None else None
    finish = cached.finish_reason if cached else None
    if finish == "length":
        return Outcome.TRUNCATED, finish, "finish_reason length (cut at the output limit)"
    if unfinished_reasoning(raw):
        return Outcome.TRUNCATED, finish, UNFINISHED_DETAIL
    if not raw.strip():
        if cached is not None and cached.has_reasoning:
            return (
                Outcome.REASONING_ONLY,
                finish,
                "empty content; the answer is in reasoning_content",
            )
        return Outcome.UNPARSED, finish, "empty answer"
    text = _first_text(extracted)
    if text is not None and text.strip() in NO_EXTRACTION:
        return Outcome.UNPARSED, finish, "the filter extracted no answer"
    return Outcome.SCORED, finish, None


def _read_file(task: str, path: Path, cache: CacheIndex | None, out: list[ItemResult]) -> int:
    """Append the file's items to OUT; return how many had a generated answer."""
    generated = 0
    decoder: msgspec.json.Decoder | None = None
    metrics: list[str] = []
    first_filter: Any = None
    # every line under the rollouts' per-line cap (MAX_RECORD_BYTES)
    for line_no, raw in iter_jsonl(path, "an lm-eval samples .jsonl file"):
        if raw[:1] != b"{" and not raw.strip():  # blank (strip copies a long line)
            continue
        try:
            if decoder is None:
                metrics = msgspec.json.decode(raw, type=_Head).metrics
                decoder = msgspec.json.Decoder(_sample_type(metrics))
            sample = decoder.decode(raw)
        except RecursionError:
            raise InputError("JSON nesting too deep", path, line_no) from None
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            if not raw.endswith(b"\n"):
                break  # a write in progress
            raise InputError(f"malformed samples line ({err})", path, line_no) from None
        if first_filter is None:
            first_filter = sample.filter
        if sample.filter != first_filter:
            continue
        text = _first_text(sample.resps)
        generated += text is not None
        outcome, finish, detail = classify(text, sample.filtered_resps, cache)
        digest = sample.prompt_hash if isinstance(sample.prompt_hash, str) else None
        out.append(
            ItemResult(
                f"{task}/{sample.doc_id}",
                digest,
                0,
                _score(sample, metrics),
                outcome,
                finish,
                detail,
                reply=reply_digest(text, None),
            )
        )
    return generated


def read_outcomes(run: Run) -> TaskOutcomes:
    files = samples_files(run.artifacts_dir)
    cache = read_cache(run.artifacts_dir)
    items: list[ItemResult] = []
    answers = 0
    for task, path in files:
        answers += _read_file(task, confined(path, run.artifacts_dir), cache, items)
    source = ", ".join(str(p.relative_to(run.artifacts_dir)) for _, p in files[:3])
    if len(files) > 3:
        source += f" and {len(files) - 3} more"
    note = coverage_note(cache, answers)
    return TaskOutcomes("lm_eval", items, run_failures(run), source, [note] if note else [])


__all__ = ["classify", "read_outcomes", "recognises", "samples_files"]
