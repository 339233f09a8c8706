"""finish_reason per reply, from the adapter's response cache (nemo-evaluator 0.2.8,
`adapters/interceptors/caching_interceptor.py`): one row per HTTP 200 response, keyed by
sha256 of the request body, the value the response body as the harness received it (after
the reasoning interceptor). Only kept whole when `use_caching` is on (nemo-evaluator's
default); with it off, only the html report's first few responses are saved.

The request key cannot be rebuilt from a harness row (the adapter edits the request
before hashing it: params_to_add, params_to_remove), so a reply is joined by what both
sides hold verbatim: the message's content and reasoning_content.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from evalkit.benchmarks.simple_evals.store import iter_cache_rows

RESPONSES = Path("cache") / "responses" / "cache.db"
AMBIGUOUS = "?"  # two cached replies with the same text but different finish_reasons


def reply_digest(content: str | None, reasoning: str | None) -> bytes:
    return hashlib.sha256(f"{content or ''}\x1f{reasoning or ''}".encode()).digest()


def finish_reasons(artifacts: Path, root: Path) -> tuple[dict[bytes, str], int]:
    """({reply digest: finish_reason}, responses read); empty when there is no cache."""
    path = artifacts / RESPONSES
    if not path.is_file():
        return {}, 0
    found: dict[bytes, str] = {}
    count = 0
    for _key, value in iter_cache_rows(path, root):
        try:
            body = json.loads(value or b"")
            choice = body["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
            continue  # not a chat completion (an embedding, an error body): no reply
        count += 1
        digest = reply_digest(message.get("content"), message.get("reasoning_content"))
        reason = str(choice.get("finish_reason"))
        if found.setdefault(digest, reason) != reason:
            found[digest] = AMBIGUOUS
    return found, count


def stored_replies(run) -> dict | None:
    """{(row key, prompt digest): reply fingerprint} from simple-evals' own per-item store
    (`<eval>/cache/cache.sqlite/cache.db`: each row's `convo` ends with the model's reply).
    The row key is the item's position in the (repeated) list, the same on both sides of a
    pair that ran one dataset; the prompt digest keeps two datasets apart. None: no store."""
    from evalkit.benchmarks.adapter import reply_fingerprint
    from evalkit.benchmarks.simple_evals import item_databases, prompt_digest

    databases = item_databases(run)
    if not databases:
        return None
    out: dict = {}
    for key, value in iter_cache_rows(databases[0], run.task_dir):
        try:
            convo = json.loads(value or b"").get("convo")
            reply = convo[-1]
            content, reasoning = reply.get("content"), reply.get("reasoning_content")
        except (ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError):
            continue  # validate reports a row that is not an item; it holds no reply
        out[(key, prompt_digest(convo))] = reply_fingerprint(content, reasoning)
    return out
