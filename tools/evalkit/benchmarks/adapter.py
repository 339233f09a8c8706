"""The benchmark adapter: what every command asks a task run, through one interface.

A task run gets its adapter once (benchmarks/registry.py, `adapter_for`); score, validate,
status, compare and the report then ask it, never the run, what kind of task it is:

- `kind`: how its items reach compare: "gym" (rollouts, paired by the plan's item key),
  "items" (a harness's per-item files, runs.outcomes.TaskOutcomes) or "results"
  (results.yml only: a headline, compared unpaired);
- `headline(run)`: the score as the harness reports it, with its declared scale;
- `items(run)`: every item with its outcome (None: the harness leaves none);
- `item_scale(run)`: the declared range of one item's score, from the metric's definition
  (never from the values: issue 37);
- `dataset(run)`: (item count, digest of the item ids and prompts) for the fingerprint;
- `responses(run)`: one fingerprint per response, for the reuse trust check;
- `plan`, `strata`, `copies_prompt`: the Gym pass plan and its strata (MRCR's needles).

The benchmark's own run checks sit in checks/rules/ (they need the check model, above this
layer); they read what the adapter answers, not the run.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.runs.outcomes import TaskOutcomes
from evalkit.runs.run import GENERIC, Fingerprint, PassPlan, Run

# A reply shorter than this (an answer letter, a number, a one-line "Answer: B") can
# coincide between two sampled runs by chance; longer replies practically never do, so
# only those count as evidence of reuse when byte-identical (the bundled GPQA pair's
# stub replies are 50-57 characters; real reasoning replies run to thousands).
NONTRIVIAL_CHARS = 128
# Item scores are compared with this slack on their declared range (float rounding:
# a mean of 0/1 values can land at 1.0000000000000002).
SCALE_SLACK = 1e-9
SCALE_RANGES = {"0-1": (0.0, 1.0), "0-100": (0.0, 100.0), "-100..100": (-100.0, 100.0)}


class Adapter:
    """The default answers (a results.yml task); each benchmark package overrides what
    differs. Stateless: what is read is cached on the Run."""

    name = "results_yml"
    kind = "results"
    plan: PassPlan = GENERIC
    strata: tuple[str, ...] = ("all",)

    def recognises(self, run: Run) -> bool:
        return True

    def benchmark(self, run: Run) -> str:
        """The label tasks pair by across the two sides (gpqa, mrcr, ...)."""
        head = self.headline_or_none(run)
        found = head.get("benchmark") if head else None
        return found if found not in (None, "unknown") else run.name

    def headline(self, run: Run) -> dict[str, Any]:
        from evalkit.benchmarks.results_yml import other_score

        return other_score(run)

    def headline_or_none(self, run: Run) -> dict[str, Any] | None:
        from evalkit.errors import InputError

        if "_headline" not in run.__dict__:
            try:
                run.__dict__["_headline"] = self.headline(run)
            except InputError:
                run.__dict__["_headline"] = None
        return run.__dict__["_headline"]

    def items(self, run: Run) -> TaskOutcomes | None:
        return None

    def item_scale(self, run: Run) -> str | None:
        return None

    def dataset(self, run: Run) -> tuple[int, str] | None:
        items = self.items(run)
        return dataset_of(items) if items is not None else None

    def responses(self, run: Run) -> dict[Any, Fingerprint] | None:
        """Response fingerprints by request, from the adapter's response cache."""
        return adapter_responses(run)

    def copies_prompt(self, run: Run):
        return None

    def config_agent(self, run: Run) -> str | None:
        """The agent the run's config names, for a run whose rollouts name none."""
        return None


class HarnessAdapter(Adapter):
    """A harness under nemo-evaluator that leaves per-item files: items from its reader
    (one module per harness), the headline from results.yml with the items' counts."""

    kind = "items"
    harness = ""
    declared_scale: str | None = "0-1"  # one item's score, from the metric's definition

    def read_outcomes(self, run: Run) -> TaskOutcomes:
        raise NotImplementedError

    def items(self, run: Run) -> TaskOutcomes | None:
        return cached(run, "_outcomes", self.read_outcomes)

    def own_key(self, run: Run) -> tuple[str, str | None] | None:
        """(flattened results.yml key suffix, its declared scale) of the harness's own
        headline, for a task the documented table (results_yml.HEADLINE_KEYS) lacks."""
        return None

    def headline(self, run: Run) -> dict[str, Any]:
        from evalkit.benchmarks.results_yml import other_score
        from evalkit.benchmarks.results_yml.denominators import with_outcomes
        from evalkit.runs.results import iter_scores, load_results

        entry = other_score(run)
        own = self.own_key(run) if entry.get("value") is None else None
        if own is not None:
            suffix, scale = own
            for score in iter_scores(load_results(run.results_path)):
                if score.key.endswith(suffix) and score.value is not None:
                    entry = {k: v for k, v in entry.items() if k != "available"}
                    entry.update(
                        metric=score.key, value=score.value, scale=scale, stderr=score.stderr
                    )
                    break
        return with_outcomes(entry, self.items(run))

    def item_scale(self, run: Run) -> str | None:
        return self.declared_scale

    def stored_replies(self, run: Run) -> dict[Any, Fingerprint] | None:
        """One fingerprint per reply the harness keeps with its items (its own per-item
        file, not the adapter's cache), keyed by item as both sides key it; None when
        its reader keeps no reply digest (ItemResult.reply)."""
        outcomes = self.items(run)
        if outcomes is None or not any(i.reply is not None for i in outcomes.items):
            return None
        return {(*i.pair_key, i.repeat): Fingerprint(None, i.reply) for i in outcomes.items}


def cached(run: Run, key: str, read):
    """READ(run) once per run."""
    if key not in run.__dict__:
        run.__dict__[key] = read(run)
    return run.__dict__[key]


def dataset_of(outcomes: TaskOutcomes) -> tuple[int, str]:
    """(distinct items, digest) folded by runs.fingerprint.dataset_identity from the
    (item id, prompt digest) pairs, as every adapter folds them."""
    from evalkit.runs.fingerprint import dataset_identity

    found = dataset_identity((i.item_id, i.prompt_digest or "") for i in outcomes.items)
    return found.item_count, found.digest


def reply_fingerprint(content: Any, reasoning: Any) -> Fingerprint:
    """A reply the harness kept without a response id: its digest only."""
    return Fingerprint(None, reply_digest(content, reasoning))


def reply_digest(content: Any, reasoning: Any) -> bytes | None:
    """A digest of a non-trivial reply, None for a short or empty one. Python's own string
    hash (computed in C, no encoding copy; every reader runs per item): the two sides of a
    comparison are read in one process, so its per-process seed does not matter, and 64
    bits make a chance match between two different replies negligible."""
    text = content if isinstance(content, str) else ""
    if isinstance(reasoning, str) and reasoning:  # joined only when there is reasoning
        text = f"{text}\x1f{reasoning}"
    stripped = text.strip()
    if len(stripped) - stripped.count("\x1f") < NONTRIVIAL_CHARS:
        return None
    return hash(text).to_bytes(8, "little", signed=True)


def adapter_responses(run: Run) -> dict[str, Fingerprint] | None:
    """{request key: (response id, reply digest)} from nemo-evaluator's response cache
    (`cache/responses/cache.db`, key = sha256 of the request body, value = the response
    body; benchmarks/adapter_cache.py). The key is the request, so the same item asked
    with the same settings has the same key on both sides; its response id is minted per
    request by the server. None when the run kept no cache."""
    from evalkit.benchmarks.simple_evals.responses import RESPONSES
    from evalkit.benchmarks.simple_evals.store import iter_cache_rows

    def read(run: Run) -> dict[str, Fingerprint] | None:
        path = run.artifacts_dir / RESPONSES
        if not path.is_file():
            return None
        out: dict[str, Fingerprint] = {}
        for key, value in iter_cache_rows(path, run.task_dir):
            try:
                body = json.loads(value or b"")
                message = body["choices"][0].get("message") or {}
                rid = body.get("id")
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                continue  # an error body or a large value kept outside: no reply
            digest = reply_digest(message.get("content"), message.get("reasoning_content"))
            out[key] = Fingerprint(rid if isinstance(rid, str) else None, digest)
        return out

    return cached(run, "_adapter_responses", read)


def out_of_range(outcomes: TaskOutcomes, scale: str | None) -> list[tuple[str, int, float]]:
    """(item id, repeat, score) of each item scored outside SCALE beyond rounding."""
    if scale not in SCALE_RANGES:
        return []
    lo, hi = SCALE_RANGES[scale]
    return [
        (i.item_id, i.repeat, i.score)
        for i in outcomes.items
        if i.score is not None and not (lo - SCALE_SLACK <= i.score <= hi + SCALE_SLACK)
    ]


__all__ = [
    "Adapter",
    "HarnessAdapter",
    "NONTRIVIAL_CHARS",
    "SCALE_RANGES",
    "adapter_responses",
    "cached",
    "dataset_of",
    "out_of_range",
    "reply_digest",
    "reply_fingerprint",
]
