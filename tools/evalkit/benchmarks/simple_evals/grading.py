"""The harness's own record of how it graded an item, held against the score its row keeps
(nvidia-simple-evals 26.3).

Each eval renders the item's html from the same `score` it stores in the row
(`common.HTML_JINJA`: `<p>Score: ...</p>`, printed as Python prints the value: `1.0`,
`True`, `None`), so the html is the harness's record of the grade. GPQA's default scorer
gives 1.0 exactly when the extracted letter is the correct one (`gpqa_eval.py`: `score =
1.0 if extracted_answer == correct_answer else 0.0`), both printed in the same html; a
custom_config may bring its own scorer, and then only the Score line is held against
the row. Every row the harness writes ends its convo with the model's reply
(`common.make_conversation_with_metadata`; HumanEval appends one per completion).
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

from evalkit.benchmarks.simple_evals.layout import GPQA_ROWS, eval_name, task_config

# Values are autoescaped, so each runs to the next "<" (linear, unlike ".*?" from every
# "<p>" prefix of a hostile row).
_FIELD = re.compile(r"<p>(Correct Answer|Extracted Answer|Score): ([^<]*)</p>")
_SHOWN = 40  # characters of a recorded answer quoted in a message
_WORDS = {"True": 1.0, "False": 0.0, "None": None}
PLAIN_GPQA = frozenset(f"gpqa_{variant}" for variant in GPQA_ROWS)


def _recorded(text: str) -> float | None | str:
    """The Score line's value: a number, None, or the text when it is neither."""
    if text in _WORDS:
        return _WORDS[text]
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9


def _reply(row: dict) -> dict | None:
    convo = row.get("convo")
    last = convo[-1] if isinstance(convo, list) and convo else None
    return last if isinstance(last, dict) and last.get("role") == "assistant" else None


def check_row(row: dict, score: float | None, exact_match: bool) -> tuple[bool, str | None]:
    """(whether the row keeps a grading record, why its score is not backed or None).
    SCORE is the row's score as read (None when absent)."""
    reply = _reply(row)
    if reply is None:
        return False, "no reply in the row: its convo ends with no assistant message"
    content = reply.get("content")
    if score and not (isinstance(content, str) and content.strip()):
        return False, f"scored {score!r} with an empty reply: nothing was answered"
    record = row.get("html") if isinstance(row.get("html"), str) else ""
    fields = {name: html.unescape(value).strip() for name, value in _FIELD.findall(record)}
    if "Score" not in fields:
        return False, None
    recorded = _recorded(fields["Score"])
    if isinstance(recorded, str) or not _same(recorded, score):
        return True, (
            f"the row's score is {score!r}; the harness's grading record says Score "
            f"{_shown(fields['Score'])}"
        )
    correct, extracted = fields.get("Correct Answer"), fields.get("Extracted Answer")
    if exact_match and correct is not None and extracted is not None:
        expected = 1.0 if extracted == correct else 0.0
        if not _same(expected, score):
            return True, (
                f"the row's score is {score!r}; its grading record has extracted "
                f"{_shown(extracted)}, correct {_shown(correct)}, which the eval scores "
                f"{expected}"
            )
    return True, None


def exact_match(config: Path | None, results: Path | None) -> bool:
    """Whether the run's eval scores by the extracted letter alone: GPQA's plain evals
    with no custom_config, read from the config the harness ran on (results.yml) or else
    the task's own. A variant such as gpqa_diamond_aa_v2 brings a custom_config through
    the framework's defaults, which only results.yml records: not held to the letters."""
    task = task_config(results) or task_config(config)
    if task is None:
        return False
    extra = task["params"].get("extra")
    custom = extra.get("custom_config") if isinstance(extra, dict) else None
    return eval_name(task) in PLAIN_GPQA and custom is None
