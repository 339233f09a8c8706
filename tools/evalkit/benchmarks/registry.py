"""Which adapter answers for a task run, picked once per run. Adding a harness is one
package with an `ADAPTER` and one line here; the most specific comes first, the
results.yml adapter (which recognises every run) last."""

from __future__ import annotations

from evalkit.benchmarks.adapter import Adapter, cached
from evalkit.benchmarks.gdpval.adapter import ADAPTER as OTHER_GYM
from evalkit.benchmarks.hle.adapter import ADAPTER as HLE
from evalkit.benchmarks.lm_eval.adapter import ADAPTER as LM_EVAL
from evalkit.benchmarks.mrcr.adapter import ADAPTER as MRCR
from evalkit.benchmarks.results_yml.adapter import ADAPTER as RESULTS_YML
from evalkit.benchmarks.simple_evals.adapter import ADAPTER as SIMPLE_EVALS
from evalkit.benchmarks.tau3.adapter import ADAPTER as TAU3
from evalkit.benchmarks.view import TaskView, read_view
from evalkit.runs.layout import TaskRun
from evalkit.runs.run import as_run

REGISTRY: tuple[Adapter, ...] = (
    MRCR,
    TAU3,
    OTHER_GYM,
    SIMPLE_EVALS,
    LM_EVAL,
    HLE,
    RESULTS_YML,
)


def load_task(task: TaskRun | TaskView) -> TaskView:
    """The task run as its adapter reads it (benchmarks/view.py), made once per run: the
    one question a command asks the benchmarks layer."""
    if isinstance(task, TaskView):
        return task
    run = as_run(task)
    return cached(run, "_view", lambda r: read_view(r, adapter_for(r)))


def adapter_for(task: TaskRun) -> Adapter:
    """The task run's adapter, chosen once (the first in REGISTRY that recognises it)."""
    run = as_run(task)
    return cached(run, "_adapter", lambda r: next(a for a in REGISTRY if a.recognises(r)))


__all__ = ["REGISTRY", "adapter_for", "load_task"]
