"""lm-eval's adapter: one item per document (the first filter). An item's scale is its
metric's: lm-eval's bounded per-document metrics (`lm_eval/api/metrics.py` in
nvidia-lm-eval 26.3: acc, acc_norm, exact_match, mcc-style 0/1 matches) are 0-1; any
other metric (bleu, perplexity, ...) has no declared range here and is left undeclared,
so compare refuses to convert it rather than guess."""

from __future__ import annotations

import msgspec

from evalkit.benchmarks.adapter import HarnessAdapter, cached
from evalkit.benchmarks.lm_eval import read_outcomes, recognises, samples_files
from evalkit.inputs import open_binary

BOUNDED = frozenset({"acc", "acc_norm", "exact_match", "em", "f1", "mc1", "mc2", "pass@1"})


class _Head(msgspec.Struct):
    metrics: list[str] = []
    filter: str | None = None


def first_metrics(run) -> tuple[str | None, list[str], str | None]:
    """(task, metric names, filter) the first samples file's first line declares: the
    metric and filter whose values the reader takes."""
    for task, path in samples_files(run.artifacts_dir):
        with open_binary(path, "an lm-eval samples .jsonl file") as handle:
            line = handle.readline(1 << 24)
        try:
            head = msgspec.json.decode(line, type=_Head)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return task, [], None  # the reader names the bad line
        return task, head.metrics, head.filter
    return None, [], None


class LmEvalAdapter(HarnessAdapter):
    name = harness = "lm_eval"

    def recognises(self, run):
        return recognises(run)

    def read_outcomes(self, run):
        return read_outcomes(run)

    def item_scale(self, run):
        _task, metrics, _filter = cached(run, "_lm_eval_metrics", first_metrics)
        return "0-1" if metrics and metrics[0] in BOUNDED else None

    def own_key(self, run):
        """results.yml's `tasks.<task>.metrics.<metric>__<filter>` (nemo-evaluator's
        lm-eval output parser names a filtered metric so): the items' metric."""
        task, metrics, filter_name = cached(run, "_lm_eval_metrics", first_metrics)
        if not task or not metrics:
            return None
        suffix = f"{task}_{metrics[0]}" + (f"__{filter_name}" if filter_name else "")
        return suffix, self.item_scale(run)


ADAPTER = LmEvalAdapter()
