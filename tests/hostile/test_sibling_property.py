"""Property: any graph of sibling `defaults:` (repeats, self-references, cycles, `_self_`
anywhere or absent) composes in bounded work, each file once; a cycle is exactly when
the launcher's own composition (nel 0.2.6 `RunConfig.from_hydra` on Hydra 1.3.8) dies of
RecursionError, and without one evalkit's values are the launcher's. Graphs and files
are made up here."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.config import groups, load_config
from helpers.tier import examples

FILES = 5
MAIN = """defaults:
  - execution: local
  - deployment: none
  - _f0
  - _self_
execution:
  output_dir: /data/results/graph
"""

lists = st.lists(st.integers(0, FILES - 1), max_size=4)
graphs = st.lists(
    st.tuples(lists, st.one_of(st.none(), st.integers(0, 4))), min_size=FILES, max_size=FILES
)


def _cyclic(graph: list[tuple[list[int], int | None]]) -> bool:
    state: dict[int, str] = {}

    def visit(node: int) -> bool:
        state[node] = "open"
        for child in graph[node][0]:
            if state.get(child) == "open" or (child not in state and visit(child)):
                return True
        state[node] = "done"
        return False

    return visit(0)


def _launcher(config: Path) -> dict | None:
    from nemo_evaluator_launcher.api.types import RunConfig
    from omegaconf import OmegaConf

    try:
        return OmegaConf.to_container(RunConfig.from_hydra(config=str(config)), resolve=False)
    except RecursionError:
        return None


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs)
def test_any_sibling_graph_composes_once_per_file_as_the_launcher_does(graph):
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "main.yaml").write_text(MAIN)
        for n, (children, self_at) in enumerate(graph):
            entries = [f"_f{c}" for c in children]
            if self_at is not None:
                entries.insert(min(self_at, len(entries)), "_self_")
            body = "defaults:\n" + "".join(f"  - {e}\n" for e in entries) if entries else ""
            (base / f"_f{n}.yaml").write_text(body + f"k{n}: {n}\nlast: f{n}\n")
        calls = []
        real = groups._compose_list
        groups._compose_list = lambda *a, **k: calls.append(1) or real(*a, **k)
        try:
            ours = load_config(str(base / "main.yaml"))
        finally:
            groups._compose_list = real
        assert len(calls) <= 1 + FILES  # the config and each file at most once
        cycles = [m for _, m in ours.defaults_problems if "lead back to" in m]
        theirs = _launcher(base / "main.yaml")
        assert (theirs is None) == _cyclic(graph) == bool(cycles)
        if theirs is not None:
            keys = {k for k in theirs if k == "last" or k.startswith("k")}
            assert {k: ours.data.get(k) for k in keys} == {k: theirs[k] for k in keys}
            assert keys == {k for k in ours.data if k == "last" or k.startswith("k")}
