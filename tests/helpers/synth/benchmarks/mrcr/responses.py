"""Model responses to MRCR items, in the Responses-API shape NeMo Gym records at the MRCR
pin (`nemo_gym/rollout_collection.py`): close copies, wrong needles, missing prefixes and
the failure kinds a run can show (leaked reasoning, runaway length, overflow)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...text import prose
from .items import MrcrItem


def _mutate(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        if not chars:
            break
        pos = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.4:
            chars[pos] = rng.choice("etaoin ")
        elif op < 0.7:
            del chars[pos]
        else:
            chars.insert(pos, rng.choice("srhld,"))
    return "".join(chars)


@dataclass
class _Outcome:
    text: str | None  # message text; None = no message item
    reasoning: str | None = None  # summary of a reasoning item, if any
    finish: str = "stop"  # "stop" / "length"
    usage_null: bool = False


def respond(
    rng: random.Random, item: MrcrItem, skill: float, kind: str, no_prefix_share: float = 0.15
) -> _Outcome:
    body = item.answer.removeprefix(item.prefix)
    thought = f"The user wants item {item.n_needles} about the topic; I recall it."
    if kind == "overflow":  # prompt + template above max-model-len: empty, usage null
        return _Outcome("", finish="length", usage_null=True)
    if kind == "leak":  # unclosed reasoning leaks into the text: the gate fails
        return _Outcome(f"{thought}</think>\n\n{item.prefix}{_mutate(rng, body, 3)}")
    if kind == "reasoning_only":
        return _Outcome(None, reasoning=thought, finish="length")
    if kind == "length":  # runaway output cut at the output limit
        loop = prose(rng, 300)
        return _Outcome(item.prefix + body[: len(body) // 3] + (loop * 12), thought, "length")
    if rng.random() < skill:
        lead = rng.choice(("", "", "\n\n", " "))  # Gym strips, so leading space is fine
        return _Outcome(lead + item.prefix + _mutate(rng, body, rng.randint(0, 12)), thought)
    if rng.random() < no_prefix_share:  # forgot the prefix
        return _Outcome(body, thought)
    return _Outcome(item.prefix + prose(rng, len(body)), thought)  # the wrong needle


def response_obj(rng: random.Random, outcome: _Outcome, item: MrcrItem, model: str) -> dict:
    output: list[dict] = []
    if outcome.reasoning is not None:
        output.append(
            {
                "id": f"rs_{rng.getrandbits(64):016x}",
                "summary": [{"text": outcome.reasoning, "type": "summary_text"}],
                "type": "reasoning",
                "encrypted_content": None,
            }
        )
    if outcome.text is not None:
        output.append(
            {
                "id": f"msg_{rng.getrandbits(64):016x}",
                "content": [
                    {
                        "annotations": [],
                        "text": outcome.text,
                        "type": "output_text",
                        "logprobs": None,
                    }
                ],
                "role": "assistant",
                "status": "completed",
                "type": "message",
            }
        )
    out_tokens = max(1, len(outcome.text or "") // 4) + rng.randint(100, 3000)
    usage = (
        None
        if outcome.usage_null
        else {
            "input_tokens": item.n_tokens + 180,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": item.n_tokens + 180 + out_tokens,
        }
    )
    return {
        "id": f"resp_{rng.getrandbits(64):016x}",
        "created_at": 1784000000.0,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"}
        if outcome.finish == "length"
        else None,
        "instructions": None,
        "metadata": None,
        "model": model,
        "object": "response",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 0.95,
        "background": None,
        "conversation": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "previous_response_id": None,
        "prompt": None,
        "prompt_cache_key": None,
        "reasoning": None,
        "safety_identifier": None,
        "service_tier": None,
        "status": None,
        "text": None,
        "top_logprobs": None,
        "truncation": None,
        "usage": usage,
        "user": None,
    }


def create_params(item: MrcrItem) -> dict:
    return {
        "background": None,
        "include": None,
        "input": [
            {"content": m["content"], "role": m["role"], "type": "message"} for m in item.messages
        ],
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "metadata": None,
        "model": None,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt": None,
        "reasoning": None,
        "service_tier": None,
        "store": None,
        "temperature": 1.0,
        "text": None,
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": None,
        "top_p": 0.95,
        "truncation": None,
        "user": None,
        "stream": None,
    }
