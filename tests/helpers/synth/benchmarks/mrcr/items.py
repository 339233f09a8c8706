"""MRCR-like items (needles in a multi-turn chat) and the grade NeMo Gym gives an answer.

The grade is written from Gym's `resources_servers/mrcr/app.py` verify() at the MRCR pin,
not imported from evalkit, so tests comparing evalkit with it are not circular."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from difflib import SequenceMatcher

from ...text import FORMATS, TOPICS, prose

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@dataclass(frozen=True)
class MrcrItem:
    prefix: str  # random_string_to_prepend (10 alphanumerics)
    n_needles: int
    n_tokens: int
    messages: tuple[dict, ...]  # the chat (user/assistant turns), last = the ask
    answer: str  # prefix + the target assistant turn


@functools.lru_cache(maxsize=8192)  # runs from the same seed grade the same answers again
def reference_grade(response_text: str | None, answer: str, prefix: str) -> tuple[float, bool]:
    """Gym verify(): strip the response only, prefix gate, removeprefix once on both."""
    text = (response_text or "").strip()
    if not text.startswith(prefix):
        return 0.0, False
    ratio = SequenceMatcher(None, text.removeprefix(prefix), answer.removeprefix(prefix))
    return float(ratio.ratio()), True


def make_items(
    n_items: int,
    seed: int = 0,
    prompt_chars: int = 2000,
    answer_chars: tuple[int, int] = (1000, 6000),
) -> list[MrcrItem]:
    """MRCR-like items: needle counts cycle 2/4/8, prompts of about prompt_chars."""
    return list(_make_items(n_items, seed, prompt_chars, tuple(answer_chars)))


@functools.lru_cache(maxsize=64)  # the items are frozen; many runs share one seed
def _make_items(
    n_items: int, seed: int, prompt_chars: int, answer_chars: tuple[int, int]
) -> tuple[MrcrItem, ...]:
    rng = random.Random(f"items-{seed}")
    items = []
    for i in range(n_items):
        n_needles = (2, 4, 8)[i % 3]
        prefix = "".join(rng.choice(ALNUM) for _ in range(10))
        topic, fmt = rng.choice(TOPICS), rng.choice(FORMATS)
        which = rng.randint(1, n_needles)
        target = prose(rng, rng.randint(*answer_chars))
        messages: list[dict] = [
            {
                "role": "user",
                "content": "Here are some examples of conversations "
                "succeeded by a follow-up question answered correctly.\n======EXAMPLE======\n",
            }
        ]
        filler = max(0, prompt_chars - len(target))
        per_turn = max(40, filler // (2 * n_needles + 2))
        for k in range(1, n_needles + 1):
            messages.append({"role": "user", "content": f"write a {fmt} about {topic}"})
            body = target if k == which else prose(rng, per_turn)
            messages.append({"role": "assistant", "content": body})
            messages.append({"role": "user", "content": "write a note about something else"})
            messages.append({"role": "assistant", "content": prose(rng, per_turn)})
        ordinal = ORDINALS.get(which, f"{which}th")
        messages.append(
            {
                "role": "user",
                "content": f"Prepend {prefix} to the {ordinal} (1 indexed) {fmt} about {topic}. "
                "Do not include any other text in your response.",
            }
        )
        chars = sum(len(m["content"]) for m in messages)
        items.append(MrcrItem(prefix, n_needles, chars // 4 + 7, tuple(messages), prefix + target))
    return tuple(items)
