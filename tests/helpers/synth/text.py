"""Filler prose shared by every benchmark's synthetic items and responses."""

from __future__ import annotations

import random

_VOCABULARY = (
    "moss river lantern quiet harbor ember willow silver morning thistle orchard "
    "meadow cinder hollow crane amber tide glass ridge sparrow velvet stone ferry "
    "north ash bramble copper dune echo fable garnet heron ivy juniper kestrel loam "
    "marrow nettle opal pewter quill rowan saffron tallow umber vesper wren yarrow "
    "the a of and in under over with beside through across toward while we they you "
    "remember carry gather wander whisper answer borrow kindle mend linger scatter "
)
WORDS = tuple(_VOCABULARY.split())
TOPICS = ("tapirs", "lighthouses", "bread", "glaciers", "chess", "owls", "rain", "copper")
FORMATS = ("poem", "short essay", "riddle", "story", "song", "letter")


def prose(rng: random.Random, chars: int) -> str:
    """Poem/essay-like text of about `chars` characters (lines of 5-9 words)."""
    lines: list[str] = []
    size = 0
    while size < chars:
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 9))]
        line = " ".join(words).capitalize() + rng.choice((",", ".", ";", "", "!"))
        if rng.random() < 0.15:
            line = f"**Verse {len(lines) // 4 + 1}**\n" + line
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]
