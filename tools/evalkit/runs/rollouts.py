"""Streaming `evaluator_rollouts.jsonl` (NeMo Gym) in bounded memory.

Lines carry the whole prompt (up to several MB each; files of several GB). Each line is
read as bytes and decoded with msgspec into Structs that declare only the fields used
here, so the prompt is skipped without building Python objects for it. Only one line is
alive at a time.

Bad input: a line that does not parse is an InputError naming FILE:LINE, except the last
line when it has no trailing newline: that is an interrupted write, counted in
`ScanStats.truncated_last_line` and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from evalkit.errors import InputError
from evalkit.inputs import iter_records, open_binary, skip_line

# ---- wire format: only the fields we read (msgspec skips the rest) -------------------


class _Part(msgspec.Struct):
    type: str | None = None
    text: str | None = None


class _Item(msgspec.Struct):
    type: str | None = None
    content: list[_Part] | str | None = None


class _Usage(msgspec.Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None


class _Incomplete(msgspec.Struct):
    reason: str | None = None


class _Response(msgspec.Struct):
    id: str | None = None
    model: str | None = None
    output: list[_Item] | None = None
    usage: _Usage | None = None
    incomplete_details: _Incomplete | None = None


class _AgentRef(msgspec.Struct):
    name: str | None = None


class _CreateParams(msgspec.Struct):
    # What the agent sent: sampling as the model saw it. `input` (the prompt, up to
    # several MB) stays raw bytes, hashed only when items are keyed by their prompt.
    temperature: float | None = None
    top_p: float | None = None
    input: msgspec.Raw = msgspec.Raw()  # empty when absent


class _Line(msgspec.Struct):
    responses_create_params: _CreateParams | None = None
    response: _Response | None = None
    reward: float | None = None
    expected_answer: str = ""
    random_string_to_prepend: str = ""
    n_needles: int | None = None
    n_tokens: int | None = None
    prefix_matched: bool | None = None
    seq_match_ratio: float | None = None
    _ng_task_index: int | None = None
    _ng_rollout_index: int | None = None
    agent_ref: _AgentRef | None = None


_DECODER = msgspec.json.Decoder(_Line)


# ---- public model --------------------------------------------------------------------


@dataclass(slots=True)
class Rollout:
    line: int
    task_index: int
    rollout_index: int
    reward: float | None
    seq_match_ratio: float | None
    prefix_matched: bool | None
    n_needles: int | None
    n_tokens: int | None
    random_string_to_prepend: str
    expected_answer: str
    response_text: str | None  # None: no message item (reasoning-only or empty output)
    usage_missing: bool  # `usage: null`: the model call failed (e.g. context overflow)
    incomplete_reason: str | None  # e.g. "max_output_tokens" (finish_reason length)
    has_reasoning_item: bool
    agent: str | None
    input_tokens: int | None
    output_tokens: int | None
    response_id: str | None = None
    model: str | None = None
    temperature: float | None = None  # responses_create_params, as sent
    top_p: float | None = None
    request_input: msgspec.Raw | None = None  # the prompt, undecoded

    @property
    def key(self) -> tuple[str, int | None, str]:
        """Content key of the MRCR item (task indices differ between runs)."""
        return (self.random_string_to_prepend, self.n_needles, self.expected_answer)


@dataclass
class ScanStats:
    lines: int = 0
    records: int = 0
    blank_lines: int = 0
    truncated_last_line: bool = False
    malformed_lines: list[int] = field(default_factory=list)
    bytes_read: int = 0


def join_message_text(items: Iterable[Any]) -> str | None:
    """Text of `output_text` parts of `message` items, joined without separator.

    Works on dicts or on objects with `type`/`content`/`text` attributes. Reasoning items
    are skipped, as the OpenAI `Response.output_text` property does. Returns None when
    there is no message item at all (a reasoning-only or empty output).
    """
    texts: list[str] = []
    seen_message = False
    for item in items:
        if _field(item, "type") != "message":
            continue
        seen_message = True
        for part in _field(item, "content") or ():
            if _field(part, "type") == "output_text":
                texts.append(_field(part, "text") or "")
    return "".join(texts) if seen_message else None


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _message_text(output: list[_Item] | None) -> tuple[str | None, bool]:
    if not output:
        return None, False
    has_reasoning = any(item.type == "reasoning" for item in output)
    return join_message_text(output), has_reasoning


def to_rollout(rec: _Line, line_no: int) -> Rollout:
    resp = rec.response
    params = rec.responses_create_params
    if resp is None:
        text, has_reasoning, usage, incomplete = None, False, None, None
    else:
        text, has_reasoning = _message_text(resp.output)
        usage, incomplete = resp.usage, resp.incomplete_details
    return Rollout(
        line=line_no,
        task_index=rec._ng_task_index if rec._ng_task_index is not None else line_no - 1,
        rollout_index=rec._ng_rollout_index or 0,
        reward=rec.reward,
        seq_match_ratio=rec.seq_match_ratio,
        prefix_matched=rec.prefix_matched,
        n_needles=rec.n_needles,
        n_tokens=rec.n_tokens,
        random_string_to_prepend=rec.random_string_to_prepend,
        expected_answer=rec.expected_answer,
        response_text=text,
        usage_missing=resp is not None and usage is None,
        incomplete_reason=incomplete.reason if incomplete is not None else None,
        has_reasoning_item=has_reasoning,
        agent=rec.agent_ref.name if rec.agent_ref is not None else None,
        input_tokens=usage.input_tokens if usage is not None else None,
        output_tokens=usage.output_tokens if usage is not None else None,
        response_id=resp.id if resp is not None else None,
        model=resp.model if resp is not None else None,
        temperature=params.temperature if params is not None else None,
        top_p=params.top_p if params is not None else None,
        request_input=params.input if params is not None and len(params.input) else None,
    )


_BYTE_POS = re.compile(r"\(byte (\d+)\)")


def describe_decode_error(err: Exception, raw: bytes) -> str:
    """A short message for a line that failed to decode (binary, non-UTF-8, bad JSON)."""
    if b"\x00" in raw:
        return "binary data (NUL byte), expected a JSON object per line"
    text = str(err)
    if isinstance(err, UnicodeDecodeError) or "UTF-8" in text or "utf-8" in text:
        return "not valid UTF-8"
    if isinstance(err, msgspec.ValidationError):
        return f"unexpected field type: {text}"
    detail = _BYTE_POS.sub("", text).replace("JSON is malformed:", "").strip()
    return f"malformed JSON ({detail})" if detail else "malformed JSON"


def decode_line(raw: bytes) -> _Line:
    """Decode one line; raises msgspec.DecodeError/ValidationError on bad input."""
    return _DECODER.decode(raw)


def decode_record(raw: bytes, path: Path, line_no: int) -> _Line:
    """One rollouts line decoded, for every reader (validate's pass, status's tally); any
    bad line, nesting too deep for the decoder included, is an InputError naming it."""
    try:
        rec = decode_line(raw)
        # msgspec skips unread fields without checking their bytes; the prompt
        # must still be UTF-8 (a cheap test when the line is pure ASCII).
        if not raw.isascii():
            raw.decode("utf-8")
        return rec
    except RecursionError:
        raise InputError("JSON nesting too deep", path, line_no) from None
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError) as err:
        raise InputError(describe_decode_error(err, raw), path, line_no) from None


def iter_raw_lines(
    path: Path, stats: ScanStats, start: int = 0, end: int | None = None, first_line: int = 1
) -> Iterator[tuple[int, _Line | None, bytes]]:
    """(line number, decoded record or None for blank, raw bytes) for each line.

    With `start`/`end` (byte offsets) only lines that START in [start, end) are read;
    a reader starting mid-line skips to the next line (used to shard a file).
    Raises InputError for a malformed line; a truncated last line is counted and skipped.
    """
    handle = open_binary(path, "a rollouts .jsonl file")  # closed in the finally below
    try:
        pos = start
        if start > 0:
            handle.seek(start - 1)
            # finish the line that started before `start` (its own shard reads it)
            pos = start - 1 + skip_line(handle, path)
        line_no = first_line - 1
        for raw in iter_records(handle, path, line_no + 1):
            if end is not None and pos >= end:
                break
            pos += len(raw)
            line_no += 1
            stats.lines += 1
            stats.bytes_read += len(raw)
            if not raw.strip():
                stats.blank_lines += 1
                continue
            try:
                rec = decode_record(raw, path, line_no)
            except InputError:
                if not raw.endswith(b"\n"):
                    stats.truncated_last_line = True
                    continue
                stats.malformed_lines.append(line_no)
                raise
            stats.records += 1
            yield line_no, rec, raw
    finally:
        handle.close()


def iter_rollouts(path: str | Path, stats: ScanStats | None = None) -> Iterator[Rollout]:
    """Every rollout of a Gym rollouts file, in file (completion) order."""
    stats = stats if stats is not None else ScanStats()
    for line_no, rec, _raw in iter_raw_lines(Path(path), stats):
        yield to_rollout(rec, line_no)
