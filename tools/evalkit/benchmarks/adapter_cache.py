"""The adapter layer's response cache, read-only: what each 200 response said about itself.

nemo-evaluator 0.2.8 caches every successful response by default (`use_caching: true`;
`adapters/interceptors/caching_interceptor.py`): `<output_dir>/cache/responses/cache.db`,
a diskcache-style sqlite table `Cache(key, ..., filename, value)`, key = sha256 of the
request JSON (`json.dumps(body, sort_keys=True)`), value = the response body bytes, or,
from 32 KiB up, a `.val` file under the same directory named by `filename`
(`adapters/caching/diskcaching.py`). Response interceptors run in reverse order, so the
cached body is what the harness received (after the reasoning interceptor, when on).

A harness keeps the answer text, not the request, so the join is by the text the
harness saw: `CacheIndex.lookup(text)` gives the finish_reason and whether the answer
was only in `reasoning_content`, for the responses that explain a failure (cut at the
limit, or no content); a finished answer with text gets no entry (lookup: None). Only a
digest and a few flags are kept per such response, never its text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from evalkit.errors import InputError
from evalkit.inputs import MAX_FILE_BYTES, confine, iter_sqlite_rows, open_binary

CACHE_DB = Path("cache") / "responses" / "cache.db"
MAX_VALUE_FILES_BYTES = 4 * 1024**3  # all `.val` files of one cache, read once each


@dataclass(frozen=True)
class CachedResponse:
    finish_reason: str | None
    content_empty: bool  # no answer text (None or only whitespace)
    has_reasoning: bool  # reasoning_content (or reasoning) carries text


def text_digest(text: str | None) -> int:
    """The join key: the answer text exactly as the harness kept it (None and "" are
    one). Python's own string hash: computed in C, once per string object; the index
    lives in one process, so its per-process seed does not matter."""
    return hash(text or "")


class _Message(msgspec.Struct):
    content: Any = None
    # Raw: only whether it holds text matters, so the (long) reasoning is never decoded
    reasoning_content: msgspec.Raw = msgspec.Raw()
    reasoning: msgspec.Raw = msgspec.Raw()


class _Choice(msgspec.Struct):
    message: _Message | None = None
    text: Any = None  # the completions endpoint
    finish_reason: Any = None


class _Body(msgspec.Struct):
    choices: list[_Choice] | None = None


_DECODER = msgspec.json.Decoder(_Body)


def _has_text(raw: msgspec.Raw) -> bool:
    """A raw JSON value that is a non-empty string (never decoded: it can be long)."""
    return len(raw) > 4 or (len(raw) > 2 and bytes(raw) not in (b"null", b'" "'))


_EDGE = 1024  # bytes looked at on each end of a body before decoding it


_CONTENT, _FINISH = b'"content"', b'"finish_reason"'
_SPACE = b" \t\r\n:"


def plainly_healthy(raw: bytes) -> bool:
    """A finished answer with text, told from the two ends of the body alone: the
    content opens the message (near the start) and finish_reason follows the long
    reasoning (near the end) in the OpenAI chat shape. Anything less clear is decoded.
    (A key cannot match inside a string value: its quotes would be escaped there.)"""
    at = raw.find(_CONTENT, 0, _EDGE)
    end = raw.rfind(_FINISH, max(0, len(raw) - _EDGE))
    if at < 0 or end < 0:
        return False
    content = raw[at + 9 : at + 25].lstrip(_SPACE)
    finish = raw[end + 15 : end + 31].lstrip(_SPACE)
    if content[:1] != b'"' or content[1:2] in (b'"', b" ", b"\\", b""):
        return False  # null, empty, or starting with a space or an escape: decode it
    return finish[:1] == b'"' and not finish.startswith(b'"length"')


def _summary(raw: bytes | str) -> tuple[int, CachedResponse] | None:
    """The facts of a response that explains a failure (cut at the limit, or no content);
    None for a finished answer with text, the common case, which needs no entry: an
    answer not found in the index was not cut and had content. Only the fields used are
    decoded (msgspec skips the rest of the body)."""
    try:
        body = _DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # not a chat or completions body: left unjoined
    if not body.choices:
        return None
    choice = body.choices[0]
    message = choice.message
    content = message.content if message is not None else choice.text
    text = content if isinstance(content, str) else None
    finish = choice.finish_reason if isinstance(choice.finish_reason, str) else None
    empty = not (text or "").strip()
    if finish != "length" and not empty:
        return None
    return text_digest(text), CachedResponse(
        finish_reason=finish,
        content_empty=empty,
        has_reasoning=message is not None
        and (_has_text(message.reasoning_content) or _has_text(message.reasoning)),
    )


class CacheIndex:
    """The responses that explain a failure, by answer-text digest, each distinct set of
    facts with its count; `responses` counts every cached response. One text can stand
    for several responses (most often the empty answer: cut ones, reasoning-only ones,
    plain empty ones), so each `lookup` hands out one of them and counts it used:
    cut ones first, then reasoning-only ones. Which empty item gets which is then
    arbitrary, but the counts by cause are the cache's."""

    def __init__(self) -> None:
        self.by_text: dict[int, dict[CachedResponse, int]] = {}
        self.responses = 0
        self.empty_with_reasoning = 0

    def add(self, digest: int, response: CachedResponse) -> None:
        self.empty_with_reasoning += response.content_empty and response.has_reasoning
        bucket = self.by_text.setdefault(digest, {})
        bucket[response] = bucket.get(response, 0) + 1

    def lookup(self, text: str | None) -> CachedResponse | None:
        bucket = self.by_text.get(text_digest(text))
        if not bucket:
            return None
        order = sorted(bucket, key=lambda r: (r.finish_reason != "length", not r.has_reasoning))
        chosen = next((r for r in order if bucket[r] > 0), order[0])
        if bucket[chosen] > 0:  # more answers than cached responses: the last one repeats
            bucket[chosen] -= 1
        return chosen

    def reasoning_only(self) -> int:
        """Responses whose content was empty while reasoning carried text."""
        return self.empty_with_reasoning


def _rows(db: Path, root: Path) -> Iterator[tuple[object, object, object]]:
    """Every (filename, value, length of value) row, through the bounded SQLite reader
    (evalkit.inputs.iter_sqlite_rows: the input is never written; a write-ahead log
    beside it is read from a private copy, within the run and a byte budget)."""
    return iter_sqlite_rows(
        db,
        root,
        "Cache",
        "filename, CASE WHEN length(value) <= ? THEN value END, length(value)",
        (MAX_FILE_BYTES,),
    )


UNFINISHED_DETAIL = "reasoning never finished (<think> without </think>), passed on as the answer"


def unfinished_reasoning(text: str) -> bool:
    """An answer that opens a <think> block and never closes it: reasoning cut at the
    output limit. nemo-evaluator 0.2.8's reasoning interceptor passes it on as the answer
    (`include_if_not_finished` defaults to true, `reasoning_interceptor.py`), and without
    that interceptor the raw text is the answer anyway. The block opens the answer, so
    only its first characters are searched for it."""
    at = text.find("<think>", 0, 64)
    return at >= 0 and text.find("</think>", at) < 0


def coverage_note(cache: CacheIndex | None, answers: int) -> str | None:
    """Why finish_reason may be unknown for some items, or None when every answer could
    be joined. nemo-evaluator 0.2.8 caches every response only with `use_caching: true`
    (its default); with `use_caching: false` it keeps the HTML report's 5
    (`adapter_config.py`: `html_report_size`)."""
    if cache is None:
        return (
            "no adapter response cache (cache/responses/cache.db): truncation and "
            "reasoning-only answers are told from the answer text alone"
        )
    if cache.responses < answers:
        return (
            f"the adapter response cache holds {cache.responses} responses for {answers} "
            "answers (use_caching: false keeps only 5): finish_reason is unknown for the "
            "rest; truncation is counted only in eval_factory_metrics.json"
        )
    return None


def confined(path: Path, root: Path) -> Path:
    """PATH itself, refused when a symbolic link takes it out of ROOT (the artifacts
    directory): a link out of the run is never read."""
    confine(path, root)
    return path


def read_sized(path: Path, limit: int) -> bytes:
    """The whole file, refused past LIMIT; the buffer is the file's size, not the limit
    (a read of limit+1 bytes reserves that much first)."""
    with open_binary(path, "a harness output file") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise InputError(f"larger than {limit} bytes; not read", path)
        try:
            return handle.read(size + 1)
        except OSError as err:
            raise InputError(f"cannot read ({err.strerror or err})", path) from None


class _ValueFiles:
    """The `.val` files rows name, each read and decoded once (many rows may name one
    file), all of them together within MAX_VALUE_FILES_BYTES."""

    def __init__(self, directory: Path):
        self.directory = directory.resolve()
        self.seen: dict[Path, tuple[int, CachedResponse] | None] = {}
        self.left = MAX_VALUE_FILES_BYTES

    def summary(self, filename: str) -> tuple[int, CachedResponse] | None:
        path = (self.directory / filename).resolve()
        if self.directory not in path.parents:  # a value file stays in the cache dir
            return None
        if path not in self.seen:
            self.seen[path] = None
            try:
                raw = read_sized(path, min(MAX_FILE_BYTES, self.left))
            except InputError as err:
                if self.left < MAX_FILE_BYTES and "larger than" in str(err):
                    raise InputError(
                        f"value files total more than {MAX_VALUE_FILES_BYTES} bytes; not read",
                        self.directory,
                    ) from None
                return None  # evicted or unreadable: the item stays unjoined, not fatal
            self.left -= len(raw)
            self.seen[path] = None if plainly_healthy(raw) else _summary(raw)
        return self.seen[path]


def _row_summary(
    files: _ValueFiles, filename: object, value: object
) -> tuple[int, CachedResponse] | None:
    """The facts of one row's response body: the row's value, or its `.val` file."""
    if isinstance(filename, str) and filename:
        return files.summary(filename)
    if isinstance(value, memoryview):
        value = bytes(value)
    if isinstance(value, bytes) and plainly_healthy(value):
        return None
    return _summary(value) if isinstance(value, (bytes, str)) else None


def read_cache(artifacts_dir: Path) -> CacheIndex | None:
    """The task's response cache indexed by answer text, or None when there is none."""
    db = artifacts_dir / CACHE_DB
    if not db.is_file():
        return None
    index = CacheIndex()
    files = _ValueFiles(db.parent)
    for filename, value, _length in _rows(db, artifacts_dir):
        index.responses += 1  # a value over the cap comes back as None: left unjoined
        summary = _row_summary(files, filename, value)
        if summary is not None:
            index.add(*summary)
    return index


__all__ = [
    "CACHE_DB",
    "CacheIndex",
    "CachedResponse",
    "confined",
    "read_cache",
    "read_sized",
    "text_digest",
]
