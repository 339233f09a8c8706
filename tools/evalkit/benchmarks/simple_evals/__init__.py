"""simple-evals tasks (nvidia-simple-evals 26.3 under nemo-evaluator 0.2.8): every item
read from the harness's own per-item database and given an outcome.

What the harness writes (checked by running `nemo-evaluator run_eval` against a loopback
stub, tests/data/suite/PROVENANCE.md): `<eval>/cache/cache.sqlite/cache.db` under the
task's artifacts, one row per item of the repeated list (`common.map_with_progress`): key
= the item's position, value = {score, metrics, html, convo}. The html carries
`Extracted Answer: X` (`None` when extraction failed); the convo's last message is the
reply, with `content` (what was scored) and `reasoning_content`. Rows are stored in
completion order. The list is the dataset repeated n_samples times in blocks, so
position p is item p mod n, repeat p div n; which positions a run's list holds is
layout.py's, and the row's own record of its grading is held against its score in
grading.py.

An item's outcome, first match wins:
- truncated: finish_reason "length" (adapter response cache), or a reply that is still an
  open `<think>` (the reasoning interceptor passes an unfinished trace on as the answer);
- reasoning_only: empty content with text in reasoning_content (scored 0 unread);
- unparsed: the harness extracted no answer (html `Extracted Answer: None`), or the
  reply is empty;
- scored: otherwise.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from pathlib import Path

from evalkit.benchmarks.simple_evals.grading import check_row, exact_match
from evalkit.benchmarks.simple_evals.layout import Layout, declared_layout
from evalkit.benchmarks.simple_evals.responses import AMBIGUOUS, finish_reasons, reply_digest
from evalkit.benchmarks.simple_evals.store import iter_cache_rows
from evalkit.errors import InputError
from evalkit.inputs import MAX_DB_ROWS, load_json
from evalkit.runs.outcomes import GradingConflict, ItemResult, Outcome, RunFailure, TaskOutcomes
from evalkit.runs.run import Run

HARNESS = "simple_evals"
# The html is autoescaped (a value's own "<" is "&lt;"), so a value runs to the next "<":
# matching stays linear in the row, where ".*?" rescanned it from every "<p>" prefix.
_EXTRACTED = re.compile(r"<p>Extracted Answer: ([^<]*)</p>")


def item_databases(run: Run) -> list[Path]:
    """`<eval>/cache/cache.sqlite/cache.db` under the artifacts (one per eval run)."""
    arts = run.artifacts_dir
    if not arts.is_dir():
        return []
    return sorted(p for p in arts.glob("*/cache/cache.sqlite/cache.db") if p.is_file())


def recognises(run: Run) -> bool:
    return bool(item_databases(run))


def prompt_digest(convo: list) -> str | None:
    prompt = [m.get("content") for m in convo[:-1] if isinstance(m, dict)]
    if not prompt:
        return None
    text = json.dumps(prompt, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def classify(row: dict, reasons: dict[bytes, str]) -> tuple[Outcome, str | None, str | None]:
    """(outcome, finish_reason from the adapter cache or None, a short reason)."""
    convo = row.get("convo") if isinstance(row.get("convo"), list) else []
    reply = convo[-1] if convo and isinstance(convo[-1], dict) else {}
    content = reply.get("content") if isinstance(reply.get("content"), str) else ""
    reasoning = reply.get("reasoning_content")
    reasoning = reasoning if isinstance(reasoning, str) else ""
    finish = reasons.get(reply_digest(content, reasoning or None))
    finish = None if finish == AMBIGUOUS else finish
    found = _EXTRACTED.search(row.get("html") or "")
    extracted = None if found is None else html.unescape(found.group(1)).strip()
    stripped = content.strip()
    if finish == "length":
        return Outcome.TRUNCATED, finish, "finish_reason length: cut at the output limit"
    if stripped.startswith("<think>") and "</think>" not in stripped:
        return Outcome.TRUNCATED, finish, "an unfinished <think> passed on as the answer"
    if not stripped and reasoning.strip():
        return Outcome.REASONING_ONLY, finish, "empty content, the reply is in reasoning_content"
    if not stripped:
        return Outcome.UNPARSED, finish, "empty reply"
    if extracted == "None":
        return Outcome.UNPARSED, finish, "no answer extracted"
    return Outcome.SCORED, finish, None


def _run_failures(run: Run) -> list[RunFailure]:
    """Run-level failures the harness leaves visible: no results.yml, non-200 replies."""
    out = []
    if not run.results_path.is_file():
        out.append(RunFailure(Outcome.MISSING, "artifacts/results.yml: absent (the run stopped)"))
    if run.metrics_path.is_file():
        doc = load_json(run.metrics_path)
        stats = doc.get("response_stats") if isinstance(doc, dict) else None
        codes = stats.get("status_codes") if isinstance(stats, dict) else None
        for code, count in sorted((codes or {}).items()):
            if str(code) != "200" and isinstance(count, int) and count > 0:
                out.append(
                    RunFailure(
                        Outcome.ENDPOINT_ERROR,
                        f"eval_factory_metrics.json: response_stats.status_codes {code}: {count}",
                        count,
                    )
                )
    return out


def _as_score(value: object) -> float | None:
    """The row's score as a float; an integer too large for one is an infinite score
    (item-scale then names it), not a crash."""
    if not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _item_layout(database: Path, rows: dict, layout: Layout) -> tuple[int, int]:
    """(items per repeat, repeats) of the list the rows were written from. Keys are the
    positions of that list (layout.py), so a key past the list the run declares, or past
    what a readable store holds, is not one: the store is refused, and no item is built
    for it. Gaps below are the items not written (a stopped run), whatever their number."""
    size = max(rows, default=-1) + 1
    declared = layout.positions
    if declared is not None and declared <= MAX_DB_ROWS:
        if size > declared:
            why = f"past the {declared} positions of this run's list ({layout.source})"
            _refuse(database, len(rows), size, why)
        repeats = layout.repeats or 1
        per_repeat = layout.items or -(-size // repeats)
    elif layout.items is not None:
        # The items per repeat are fixed (limit_samples) but not the repeats: as many
        # blocks as the highest key reaches.
        per_repeat, repeats = layout.items, max(1, -(-size // layout.items))
    else:
        # No believable declaration: the rows alone say how far the list reaches.
        repeats = max(1, min(layout.repeats or 1, size))
        per_repeat = -(-size // repeats)
    if per_repeat * repeats > MAX_DB_ROWS:
        why = f"more positions than the {MAX_DB_ROWS} rows a store is read to"
        _refuse(database, len(rows), size, why)
    return per_repeat, repeats


def _refuse(database: Path, present: int, size: int, why: str) -> None:
    raise InputError(
        f"row keys run to {size - 1} with {present} rows present, {why}: not simple-evals "
        "item positions; not read",
        database,
    )


def read_outcomes(run: Run) -> TaskOutcomes:
    """Every item of the task's simple-evals database, with its outcome."""
    [database, *_] = item_databases(run)
    reasons, _ = finish_reasons(run.artifacts_dir, run.task_dir)
    by_letter = exact_match(run.config_path, run.results_path)
    rows: dict[int, tuple[str | None, float | None, Outcome, str | None, str | None]] = {}
    graded, unbacked = 0, {}  # rows with a grading record; position: why its score is not
    for key, value in iter_cache_rows(database, run.task_dir):
        try:
            position = int(key)
            row = json.loads(value or b"")
        except ValueError:
            raise InputError(f"row {key!r} is not a simple-evals item", database) from None
        except RecursionError:
            raise InputError(f"row {key!r}: JSON nesting too deep", database) from None
        if not isinstance(row, dict) or position < 0:
            raise InputError(f"row {key!r} is not a simple-evals item", database)
        outcome, finish, detail = classify(row, reasons)
        convo = row.get("convo") if isinstance(row.get("convo"), list) else []
        score = _as_score(row.get("score"))
        rows[position] = (prompt_digest(convo), score, outcome, finish, detail)
        recorded, conflict = check_row(row, score, by_letter)
        graded += recorded
        if conflict:
            unbacked[position] = conflict
    layout = declared_layout(run.config_path, run.results_path)
    per_repeat, repeats = _item_layout(database, rows, layout)
    items = []
    for position in range(per_repeat * repeats):
        item, repeat = str(position % per_repeat), position // per_repeat
        if position not in rows:
            items.append(ItemResult(item, None, repeat, None, Outcome.MISSING, None, "no row"))
            continue
        digest, score, outcome, finish, detail = rows[position]
        items.append(ItemResult(item, digest, repeat, score, outcome, finish, detail))
    conflicts = [
        GradingConflict(str(p % per_repeat), p // per_repeat, why)
        for p, why in sorted(unbacked.items())
    ]
    source = str(database.relative_to(run.task_dir))
    notes = []
    if layout.repeats is None and rows:
        notes.append(
            "n_samples not recorded in the run (a framework default applies): each "
            "position read as an item of its own, not mapped to repeats"
        )
    outcomes = TaskOutcomes(HARNESS, items, _run_failures(run), source, notes)
    outcomes.graded, outcomes.conflicts = graded, conflicts
    if layout.items is not None and layout.repeats is not None:
        outcomes.expected = layout.items * layout.repeats  # the list the config fixes
    return outcomes


__all__ = ["HARNESS", "read_outcomes", "recognises"]
