"""Which positions a simple-evals item store can hold, from what the harness writes
(nvidia-simple-evals 26.3 under nemo-evaluator 0.2.8).

The harness builds one list per run: the eval's dataset, down-sampled when asked, cut to
its first `--first_n` items, then repeated `--num_repeats` times in blocks
(`simple_evals_types.Eval.prepare_examples`). nemo-evaluator's template passes the task's
own `config.params.limit_samples` as `--first_n` and `config.params.extra.n_samples` as
`--num_repeats` (`core_evals/simple_evals/framework.yml`). `common.map_with_progress`
writes one row per finished item, keyed by its position in that list, and starts the
items in the order `asyncio.as_completed` takes them out of a set, not in list order:
a run that stopped early leaves its rows scattered over the whole list (the bundled
aborted run: 20 rows, keys up to 29 of 30). So gaps anywhere are a normal partial
store; a key at or past the list's length is not a position the harness wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import load_yaml

# Rows of GPQA's three sets, which simple-evals loads as `Idavidrein/gpqa`,
# `gpqa_<variant>` (gpqa_eval.py; the variant is the eval name's second word): Rein et
# al. 2023, "GPQA: A Graduate-Level Google-Proof Q&A Benchmark", arXiv:2311.12022.
GPQA_ROWS = {"diamond": 198, "main": 448, "extended": 546}


@dataclass(frozen=True)
class Layout:
    """The list the run's config declares: `items` per repeat when the config fixes it
    (limit_samples with nothing sampled before the cut), `most_items` per repeat at most
    (limit_samples, the dataset's size), and the repeat count (None: not recorded)."""

    repeats: int | None = None
    items: int | None = None
    most_items: int | None = None
    source: str = "the rows present"  # how the numbers were read, for messages

    @property
    def positions(self) -> int | None:
        """How many positions the list holds at most (None: the run does not say)."""
        if self.most_items is None or self.repeats is None:
            return None
        return self.most_items * self.repeats


def task_config(path: Path | None) -> dict | None:
    """The `config` section of a nemo-evaluator config or of the results.yml that echoes
    it, when it has `params`; None when absent or unreadable (other checks say so)."""
    if path is None or not path.is_file():
        return None
    try:
        doc = load_yaml(path)
    except InputError:
        return None
    node = doc.get("config") if isinstance(doc, dict) else None
    return node if isinstance(node, dict) and isinstance(node.get("params"), dict) else None


def eval_name(task: dict) -> Any:
    """simple-evals' --eval_name: params.task; the launcher's configs leave it to the
    framework's defaults, which name each simple-evals task after its type."""
    return task["params"].get("task", task.get("type"))


def _positive_int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def _dataset_rows(name: Any) -> int | None:
    if not isinstance(name, str) or not name.startswith("gpqa_"):
        return None
    return GPQA_ROWS.get(name.split("_")[1])


def declared_layout(config: Path | None, results: Path | None = None) -> Layout:
    """The list from the config the harness ran on: results.yml echoes it with the
    framework's defaults merged in; before the harness wrote it (a stopped run), the
    task's own run_config.yml, which holds only what the launcher set. A framework
    default it omits (simple-evals' n_samples of 5 for gpqa_diamond_aa_v2, say) is then
    not known, and the repeat count with it."""
    merged, own = task_config(results), task_config(config)
    task = merged or own
    if task is None:
        return Layout()
    where = "results.yml" if merged else "run_config.yml"
    params = task["params"]
    name = eval_name(task)
    extra = params.get("extra") if isinstance(params.get("extra"), dict) else {}
    repeats = _positive_int(extra.get("n_samples"))
    limit = _positive_int(params.get("limit_samples"))
    rows = _dataset_rows(name)
    bounds = [n for n in (limit, rows) if n is not None]
    most = min(bounds) if bounds else None
    # Sampling before the cut (a down-sampling ratio, extra arguments such as
    # --examples) can leave fewer items than the limit: then only a bound.
    sampled = extra.get("downsampling_ratio") is not None or extra.get("args") is not None
    items = most if limit is not None and not sampled else None
    said = [f"limit_samples {limit}"] if limit else []
    said += [f"{name}: {rows} rows"] if rows else []
    said += [f"n_samples {repeats}" if repeats else "n_samples not recorded"]
    return Layout(repeats, items, most, f"{', '.join(said)}; {where}")
