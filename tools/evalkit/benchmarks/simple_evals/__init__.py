"""simple-evals tasks (nvidia-simple-evals 26.3 under nemo-evaluator 0.2.8): every item
read from the harness's own per-item database and given an outcome.

What the harness writes (checked by running `nemo-evaluator run_eval` against a loopback
stub, tests/data/suite/PROVENANCE.md): `<eval>/cache/cache.sqlite/cache.db` under the
task's artifacts, one row per item of the repeated list (`common.map_with_progress`): key
= the item's position, value = {score, metrics, html, convo}. The html carries
`Extracted Answer: X` (`None` when extraction failed); the convo's last message is the
reply, with `content` (what was scored) and `reasoning_content`. Rows are stored in
completion order. The list is the dataset repeated n_samples times in blocks, so
position p is item p mod n, repeat p div n.

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
import re
from pathlib import Path

from evalkit.benchmarks.simple_evals.responses import AMBIGUOUS, finish_reasons, reply_digest
from evalkit.benchmarks.simple_evals.store import iter_cache_rows
from evalkit.errors import InputError
from evalkit.inputs import load_json
from evalkit.runs.outcomes import ItemResult, Outcome, RunFailure, TaskOutcomes
from evalkit.runs.run import Run
from evalkit.runs.settings import find_key

HARNESS = "simple_evals"
_EXTRACTED = re.compile(r"<p>Extracted Answer: (.*?)</p>", re.S)


def item_databases(run: Run) -> list[Path]:
    """`<eval>/cache/cache.sqlite/cache.db` under the artifacts (one per eval run)."""
    arts = run.artifacts_dir
    if not arts.is_dir():
        return []
    return sorted(p for p in arts.glob("*/cache/cache.sqlite/cache.db") if p.is_file())


def recognises(run: Run) -> bool:
    return bool(item_databases(run))


def repeats_of(run: Run) -> int:
    """simple-evals' n_samples (its --num_repeats), from the run's config; 1 if unset."""
    config = run.config_path
    if config is None:
        return 1
    from evalkit.inputs import load_yaml
    from evalkit.runs.settings import own_sections, task_index_of

    try:
        own = own_sections(load_yaml(config), task_index_of(run.task_dir))
    except InputError:
        return 1
    # the task's own n_samples, never another task's of the invocation (its metadata)
    values = [v for v in find_key(own, "n_samples") if isinstance(v, int)]
    return max(1, values[0]) if values else 1


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


def _check_positions(database: Path, present: int, last: int, total: int) -> None:
    """Missing items are the holes below the last position written (the rows in flight
    when a run stopped), so they cannot outnumber the rows present: keys that say
    otherwise are not positions, and no item is built for them."""
    if total - present > present:
        raise InputError(
            f"row keys run to {last - 1} with {present} rows present: not simple-evals "
            "item positions; not read",
            database,
        )


def read_outcomes(run: Run) -> TaskOutcomes:
    """Every item of the task's simple-evals database, with its outcome."""
    [database, *_] = item_databases(run)
    reasons, _ = finish_reasons(run.artifacts_dir, run.task_dir)
    repeats = repeats_of(run)
    rows: dict[int, tuple[str | None, float | None, Outcome, str | None, str | None]] = {}
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
        score = row.get("score")
        score = float(score) if isinstance(score, (int, float)) else None
        rows[position] = (prompt_digest(convo), score, outcome, finish, detail)
    size = max(rows, default=-1) + 1
    repeats = max(1, min(repeats, size))  # a declared count beyond the rows is not believed
    per_repeat = -(-size // repeats)  # positions run 0 .. repeats x items - 1
    _check_positions(database, len(rows), size, per_repeat * repeats)
    items = []
    for position in range(per_repeat * repeats):
        item, repeat = str(position % per_repeat), position // per_repeat
        if position not in rows:
            items.append(ItemResult(item, None, repeat, None, Outcome.MISSING, None, "no row"))
            continue
        digest, score, outcome, finish, detail = rows[position]
        items.append(ItemResult(item, digest, repeat, score, outcome, finish, detail))
    source = str(database.relative_to(run.task_dir))
    return TaskOutcomes(HARNESS, items, _run_failures(run), source)


__all__ = ["HARNESS", "read_outcomes", "recognises"]
