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
was only in `reasoning_content`. Only small facts are kept per response (a digest and a
few flags), so memory stays bounded by the task's item count, never by response size.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import MAX_FILE_BYTES, read_bytes

CACHE_DB = Path("cache") / "responses" / "cache.db"


@dataclass(frozen=True)
class CachedResponse:
    finish_reason: str | None
    content_empty: bool  # no answer text (None or only whitespace)
    has_reasoning: bool  # reasoning_content (or reasoning) carries text
    completion_tokens: int | None


def text_digest(text: str | None) -> bytes:
    """The join key: the answer text as the harness kept it (None and "" are one)."""
    body = (text or "").strip().encode("utf-8", "surrogatepass")
    return hashlib.blake2b(body, digest_size=16).digest()


def _summary(body: dict) -> tuple[bytes, CachedResponse] | None:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    content = message.get("content") if message else choice.get("text")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    tokens = usage.get("completion_tokens")
    text = content if isinstance(content, str) else None
    return text_digest(text), CachedResponse(
        finish_reason=choice.get("finish_reason")
        if isinstance(choice.get("finish_reason"), str)
        else None,
        content_empty=not (text or "").strip(),
        has_reasoning=isinstance(reasoning, str) and bool(reasoning.strip()),
        completion_tokens=tokens if isinstance(tokens, int) else None,
    )


class CacheIndex:
    """Responses by answer-text digest. Several responses with one text (most often the
    empty one) keep them all; `lookup` prefers the one that explains a failure."""

    def __init__(self) -> None:
        self.by_text: dict[bytes, list[CachedResponse]] = {}
        self.responses = 0
        self.empty_with_reasoning = 0

    def add(self, digest: bytes, response: CachedResponse) -> None:
        self.responses += 1
        self.empty_with_reasoning += response.content_empty and response.has_reasoning
        bucket = self.by_text.setdefault(digest, [])
        if len(bucket) < 8 and response not in bucket:  # identical facts add nothing
            bucket.append(response)

    def lookup(self, text: str | None) -> CachedResponse | None:
        bucket = self.by_text.get(text_digest(text))
        if not bucket:
            return None
        return next((r for r in bucket if r.finish_reason == "length"), None) or next(
            (r for r in bucket if r.has_reasoning), bucket[0]
        )

    def reasoning_only(self) -> int:
        """Responses whose content was empty while reasoning carried text."""
        return self.empty_with_reasoning


def _rows(db: Path) -> Iterator[tuple[object, object]]:
    # immutable=1: never take a lock nor write -wal/-shm files beside an input
    uri = f"{db.resolve().as_uri()}?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(f"cannot open the response cache ({err})", db) from None
    try:
        yield from conn.execute("SELECT filename, value FROM Cache")
    except sqlite3.Error as err:
        raise InputError(f"not a nemo-evaluator response cache ({err})", db) from None
    finally:
        conn.close()


def _body(directory: Path, filename: object, value: object) -> dict | None:
    if isinstance(filename, str) and filename:
        path = (directory / filename).resolve()
        if directory.resolve() not in path.parents:  # a value file stays in the cache dir
            return None
        try:
            raw: object = read_bytes(path, MAX_FILE_BYTES)
        except InputError:
            return None  # evicted or unreadable: the item stays unjoined, not fatal
    else:
        raw = value
    if isinstance(raw, memoryview):
        raw = bytes(raw)
    try:
        body = json.loads(raw) if isinstance(raw, (bytes, str)) else None
    except (ValueError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


def read_cache(artifacts_dir: Path) -> CacheIndex | None:
    """The task's response cache indexed by answer text, or None when there is none."""
    db = artifacts_dir / CACHE_DB
    if not db.is_file():
        return None
    index = CacheIndex()
    for filename, value in _rows(db):
        body = _body(db.parent, filename, value)
        summary = _summary(body) if body is not None else None
        if summary is not None:
            index.add(*summary)
    return index


__all__ = ["CACHE_DB", "CacheIndex", "CachedResponse", "read_cache", "text_digest"]
