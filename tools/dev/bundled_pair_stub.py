"""A loopback stand-in for the served model, for the GPQA task of the bundled pair.

An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1 that answers GPQA-shaped
multiple-choice prompts deterministically: whether an answer is right depends only on
the item and the side (seeded), never on request order or timing, so a re-run gives the
same graded answers. It serves a bounded number of requests and stops by itself after
a deadline. Used by bundled_pair_gpqa.py (see tests/data/suite/PROVENANCE.md).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CREATED = 1796000000  # a fixed `created`, like the fixed times elsewhere in the pair
_CHOICE = re.compile(r"^([ABCD])\) (.*)$", re.M)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


# How a side's server hands the reply back. "served" is a working reasoning setup (the
# <think> block in content, which the adapter's reasoning interceptor strips). "broken"
# stands for a reasoning parser that misses the end of thinking: for LOST of the items the
# whole reply lands in reasoning_content with an empty content; for CUT of them the
# reasoning runs into the output limit (finish_reason "length", an unfinished <think>).
LOST, CUT = 0.30, 0.03


def answer(items: dict[str, dict], side: str, hit_rate: float, prompt: str) -> dict:
    """The stub model's reply to one prompt, as {content, reasoning_content,
    finish_reason}: the right letter when the item is within reach and a side-seeded draw
    says so, else a wrong letter (or, rarely, no answer line at all, which the harness's
    extraction scores 0). `side` is "baseline", "candidate" or "candidate/broken": the
    broken side draws its answers as the candidate does (the same model) and differs
    only in how the server returns them."""
    model, _, serving = side.partition("/")
    choices = dict(_CHOICE.findall(prompt))
    item = next((it for q, it in items.items() if q in prompt), None)
    if item is None or len(choices) != 4:
        return _reply("I cannot tell which question this is.\n\nAnswer: A")
    right = next(letter for letter, text in choices.items() if text == item["Correct Answer"])
    rng = random.Random(_digest(model, item["Record ID"]))
    draw = rng.random()
    if item["known"] and draw < hit_rate:
        letter = right
    else:
        letter = rng.choice([c for c in "ABCD" if c != right])
    steps = " ".join(rng.choice(("weigh", "recall", "check", "compare")) for _ in range(12))
    text = f"Having compared the four options, {letter} fits best.\n\nAnswer: {letter}"
    if rng.random() < 0.03:  # a reply that never states its letter
        text = "The options look close; I would need more context."
    if serving != "broken":
        return _reply(f"<think>Steps: {steps}.</think>{text}")
    fate = random.Random(_digest("serving", item["Record ID"])).random()
    if fate < CUT:
        return _reply(f"<think>Steps: {steps}, then", finish="length")
    if fate < CUT + LOST:
        return _reply(None, reasoning=f"Steps: {steps}.\n\n{text}")
    return _reply(f"<think>Steps: {steps}.</think>{text}")


def _reply(content, reasoning=None, finish="stop") -> dict:
    return {"content": content, "reasoning_content": reasoning, "finish_reason": finish}


class Stub:
    """`with Stub(items, side, hit_rate, max_requests) as stub:` serves on stub.url."""

    def __init__(self, items: dict, side: str, hit_rate: float, max_requests: int, deadline=600):
        self.items, self.side, self.hit_rate = items, side, hit_rate
        self.left = max_requests
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/chat/completions"
        self.timer = threading.Timer(deadline, self.stop)  # stops by itself
        self.timer.daemon = True

    def __enter__(self) -> Stub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.timer.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.stop()

    def stop(self) -> None:
        self.timer.cancel()
        threading.Thread(target=self.server.shutdown, daemon=True).start()

    def reply(self, body: dict) -> tuple[int, dict]:
        with self.lock:
            self.left -= 1
            if self.left < 0:
                return 503, {"error": {"message": "stub: request budget spent"}}
        prompt = "\n".join(m.get("content") or "" for m in body.get("messages", []))
        reply = answer(self.items, self.side, self.hit_rate, prompt)
        message = {"role": "assistant", "content": reply["content"]}
        if reply["reasoning_content"] is not None:
            message["reasoning_content"] = reply["reasoning_content"]
        said = (reply["content"] or "") + (reply["reasoning_content"] or "")
        prompt_tokens = len(prompt.split()) * 4 // 3
        completion_tokens = len(said.split()) * 4 // 3
        return 200, {
            "id": "chatcmpl-" + _digest(self.side, prompt)[:24],
            "object": "chat.completion",
            "created": CREATED,
            "model": body.get("model", "served-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply["finish_reason"],
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                code, doc = (
                    stub.reply(body)
                    if self.path.endswith("/chat/completions")
                    else (
                        404,
                        {"error": {"message": f"stub: no route {self.path}"}},
                    )
                )
                data = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args):  # quiet: the generator's output stays short
                pass

        return Handler
