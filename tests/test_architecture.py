"""The package's shape, read from its own source with `ast`: imports only go down the layers
(docs/ARCHITECTURE.md), no two packages import each other, the run model knows no
benchmark, and no source file grows past 450 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "evalkit"

# Lowest first; a unit may import only units listed before it (and itself). The base
# holds the readers and small shared types every layer uses.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("base",),
    ("runs", "skillcheck"),
    ("benchmarks",),
    ("checks", "config", "sizing"),
    ("comparison", "status", "preflight"),
    ("init",),
    ("render",),
    ("commands",),
    ("cli",),
    ("__main__",),
)
BASE = {
    "__init__",
    "errors",
    "inputs",
    "docsplice",
    "findings",
    "checkpoint",
    "secrets",
    "skillroot",
    "shellword",
    "_seqmatch",
}
# The two sides never import each other: a run check does not read a config under
# preflight's rules, and preflight does not read run directories.
POST_RUN = {"checks", "comparison", "status"}
PRE_LAUNCH = {"config", "sizing", "preflight", "init", "skillcheck"}
# Known climbs on the pre-launch side, left to the branch that owns it; each fails the
# test once it is gone, so the list only shrinks.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}
MAX_LINES = 450
# Over the limit and owned by a branch that does not split it here (see the report of
# the change that added this test); the test fails once a file shrinks, so the list does.
KNOWN_LONG: dict[str, str] = {}


def unit_of(module: str) -> str:
    """`evalkit.a.b` -> the layer unit it belongs to."""
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else "__init__"
    return "base" if head in BASE else head


def rank(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    raise AssertionError(f"{unit}: not placed in LAYERS (tests/test_architecture.py)")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache  # the sources do not change during a run; five tests walk them all
def imports_of(path: Path) -> frozenset[str]:
    """Every evalkit module PATH imports, at any depth (function-local imports count)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "evalkit")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "evalkit":
                continue
            found.add(target)
            for alias in node.names:  # `from evalkit.x import y`: y may be a module
                parts = [*target.split(".")[1:], alias.name]
                if (PACKAGE.joinpath(*parts)).is_dir() or PACKAGE.joinpath(
                    *parts[:-1], f"{parts[-1]}.py"
                ).is_file():
                    found.add(f"{target}.{alias.name}")
    return frozenset(found)


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def unit_edges() -> dict[tuple[str, str], list[str]]:
    """(from unit, to unit) -> the files that import that way."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sources():
        here = unit_of(module_name(path))
        for target in imports_of(path):
            there = unit_of(target)
            if there != here:
                edges.setdefault((here, there), []).append(str(path.relative_to(PACKAGE)))
    return edges


def test_every_import_goes_down_a_layer():
    edges = unit_edges()
    upward = [
        f"{a} -> {b} ({', '.join(sorted(set(files)))})"
        for (a, b), files in edges.items()
        if rank(b) >= rank(a) and (a, b) not in KNOWN_UPWARD
    ]
    gone = [edge for edge in KNOWN_UPWARD if edge not in edges]
    assert not gone, f"no longer imported, drop from KNOWN_UPWARD: {gone}"
    assert not upward, "imports that climb (or stay level between units):\n" + "\n".join(upward)


def test_no_cycle_between_packages():
    graph: dict[str, set[str]] = {}
    for a, b in unit_edges():
        if (a, b) not in KNOWN_UPWARD:
            graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError("cycle: " + " -> ".join([*trail, node, nxt]))
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_the_base_modules_import_no_cycle():
    """The base is one unit, so the package graph cannot see a circle inside it (issue 30:
    the YAML reader and the file reader once imported each other)."""
    base = {module_name(p): p for p in sources() if unit_of(module_name(p)) == "base"}
    graph = {m: {t for t in imports_of(p) if t in base and t != m} for m, p in base.items()}
    for start in graph:
        seen, stack = set(), list(graph[start])
        while stack:
            node = stack.pop()
            assert node != start, f"import cycle through {start}"
            if node not in seen:
                seen.add(node)
                stack.extend(graph[node])


def test_the_run_model_knows_no_benchmark_check_comparison_or_renderer():
    forbidden = {"benchmarks", "checks", "comparison", "render", "status", "commands"}
    found = [
        f"{path.relative_to(PACKAGE)} imports {target}"
        for path in sorted((PACKAGE / "runs").rglob("*.py"))
        for target in imports_of(path)
        if unit_of(target) in forbidden
    ]
    assert not found, "\n".join(found)


def test_the_post_run_and_pre_launch_sides_do_not_import_each_other():
    crossing = [
        f"{a} -> {b}"
        for a, b in unit_edges()
        if (a in POST_RUN and b in PRE_LAUNCH) or (a in PRE_LAUNCH and b in POST_RUN)
    ]
    assert not crossing, crossing


def test_every_unit_is_placed():
    for path in sources():
        rank(unit_of(module_name(path)))


def test_the_walker_sees_relative_and_function_local_imports(tmp_path):
    """The checker itself: a function-local `from ..x import y` counts as an import."""
    fake = PACKAGE / "runs" / "run.py"
    assert "evalkit.runs.layout" in imports_of(fake)
    assert unit_of("evalkit.benchmarks.mrcr.variants") == "benchmarks"
    assert unit_of("evalkit.errors") == "base" and unit_of("evalkit.render.report") == "render"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_source_file_over_the_line_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    name = str(path.relative_to(PACKAGE))
    if name in KNOWN_LONG:
        assert lines > MAX_LINES, f"{name} is {lines} lines now: drop it from KNOWN_LONG"
        return
    assert lines <= MAX_LINES, f"{name}: {lines} lines (limit {MAX_LINES}): split it"
