"""The mutation tier: do the tests fail when the code that decides a verdict or guards the
machine breaks? Not part of any CI run (a module takes minutes to an hour on two cores).

    bash tests/run.sh --python tests/mutation/run.py inert inputs   # named targets
    bash tests/run.sh --python tests/mutation/run.py --list         # the targets

For each target, cosmic-ray (the test extra) mutates its modules one change at a time in a
scratch copy of the clone (never this clone: an interrupted run would leave a mutant in
place) and runs the target's fast tests against every mutant, imported from the copy.
A mutant the tests pass on survives. The score (killed / (killed + survived)) and every
survivor with its diff go to tests/mutation/reports/<target>.md (--out DIR elsewhere).
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PKG = "tools/evalkit"

# target -> (modules under tools/evalkit, the fast tests that exercise them). Each test
# selection is kept to the files that import the module, so a mutant costs seconds, and
# the quickest files come first: `-x` stops at the first failure.
TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "inert": (["render/inert.py"], ["tests/test_inert_cells.py", "tests/hostile/test_inert.py"]),
    "inputs": (
        ["inputs.py"],
        [
            "tests/test_inputs.py",
            "tests/test_inputs_bounds.py",
            "tests/hostile/test_bounds.py",
            "tests/hostile/test_harness_stores.py",
            "tests/hostile/test_readers.py",
        ],
    ),
    "secrets": (
        ["secrets"],
        [
            "tests/hostile/test_secrets.py",
            "tests/hostile/test_secrets_meaning.py",
            "tests/hostile/test_redaction.py",
            "tests/test_secrets_units.py",
        ],
    ),
    "budget": (["checks/failures/budget.py"], ["tests/test_triage_boundaries.py"]),
    "failures": (
        ["checks/failures"],
        [
            "tests/test_failures_values.py",
            "tests/test_failures.py",
            "tests/test_failures_corpus.py",
            "tests/test_failures_fatal.py",
            "tests/test_failures_docs.py",
            "tests/test_failures_slurm.py",
            "tests/test_triage_boundaries.py",
        ],
    ),
    "comparison": (
        [
            "comparison/trust.py",
            "comparison/task_trust.py",
            "comparison/fingerprint.py",
            "comparison/fingerprint_checks.py",
            "comparison/gate.py",
            "comparison/pairing.py",
            "comparison/items.py",
        ],
        [
            "tests/test_trust_boundaries.py",
            "tests/test_fail_closed.py",
            "tests/test_metamorphic.py",
            "tests/test_compare.py",
            "tests/test_fingerprint.py",
            "tests/test_suite_compare.py",
        ],
    ),  # fmt: skip
    "fixes": (
        ["preflight/fixes"],
        [
            "tests/preflight/test_fixer_contract.py",
            "tests/preflight/test_fix_choices.py",
            "tests/preflight/test_fix_branches.py",
            "tests/preflight/test_unsafe_fixes.py",
            "tests/preflight/test_fix.py",
            "tests/preflight/test_fix_meaning.py",
            "tests/preflight/test_fix_files.py",
            "tests/preflight/test_history_fixes.py",
            "tests/preflight/test_literal_word_fix.py",
            "tests/preflight/test_next_fix.py",
            "tests/preflight/test_docs.py",
        ],
    ),
}

# Left out, as noise or as cost without information: the decorator remover (dataclass and
# fixer registration fail at import, not in a test); a binary operator swapped for a bit,
# shift, power or modulo one (on the strings and small counts here a TypeError or an
# absurd value any test meets; the arithmetic swaps stay); a comparison swapped for `is`
# or `is not` (equal small ints and interned strings make most of them equivalent).
EXCLUDED_OPERATORS = [
    "core/RemoveDecorator",
    r"core/ReplaceBinaryOperator_\w+_(Pow|LShift|RShift|BitAnd|BitOr|BitXor|Mod|FloorDiv)$",
    r"core/ReplaceComparisonOperator_(Eq|NotEq|Lt|LtE|Gt|GtE|In|NotIn)_(Is|IsNot)$",
]
FAST = "not slow and not launcher and not network"


def _copy(state: Path) -> Path:
    """The clone without .git and caches; the in-place extension build comes along."""
    root = state / "clone"
    skip = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".venv", "reports")
    shutil.copytree(REPO, root, ignore=skip, symlinks=True)
    return root


def _mutated_modules(session: Path) -> list[str]:
    """The modules the session's run mutants are in (paths relative to the clone; the
    ones an operator filter skipped do not count)."""
    with sqlite3.connect(session) as con:
        rows = con.execute(
            "SELECT DISTINCT module_path FROM mutation_specs WHERE job_id IN (SELECT job_id"
            " FROM work_results WHERE test_outcome IN ('KILLED', 'SURVIVED'))"
        ).fetchall()
    con.close()
    return sorted(row[0] for row in rows)


def _same_modules(root: Path, session: Path) -> bool:
    """Whether the modules the session's mutants are in are still the clone's: a mutant
    names a position in its module, so a changed one needs a fresh run. Other files may
    have changed; the copy takes them from the clone before the re-run."""
    for module in _mutated_modules(session):
        theirs, mine = root / module, REPO / module
        if not mine.is_file() or not theirs.is_file() or mine.read_bytes() != theirs.read_bytes():
            return False
    return True


def _config(path: Path, modules: list[str], tests: list[str], timeout: float) -> None:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "-p", "no:xdist", "-m", FAST, *tests]  # fmt: skip
    quoted = ", ".join(f'"{m}"' for m in modules)
    excluded = ", ".join(f"'{o}'" for o in EXCLUDED_OPERATORS)  # TOML literal strings
    path.write_text(
        "[cosmic-ray]\n"
        f"module-path = [{quoted}]\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {shlex.join(command)!r}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excluded}]\n",
        encoding="utf-8",
    )


def _tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _results(session: Path):
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome

    killed, survived, other, timeouts = 0, [], 0, 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.test_outcome == TestOutcome.KILLED:
                killed += 1
                timeouts += result.output == "timeout"
            elif result.test_outcome == TestOutcome.SURVIVED:
                survived.append((item, result))
            else:
                other += 1  # incompetent: the mutant did not import, or was skipped
    return killed, survived, other, timeouts


def _revision() -> str:
    """The clone's commit, and whether its files differ from it, when the copy is made."""

    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return run.stdout.strip() if run.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" with uncommitted changes" if git("status", "--porcelain") else "")


def _report(target, modules, tests, counts, seconds, head) -> str:
    killed, survived, other, timeouts = counts
    total = killed + len(survived)
    score = 100.0 * killed / total if total else 100.0
    lines = [
        f"# Mutation score: {target}",
        "",
        f"- score: {score:.1f}% ({killed} killed of {total}, {timeouts} of them by the "
        f"timeout; {len(survived)} survived; {other} filtered out or incompetent, not counted)",
        f"- modules: {', '.join(modules)}",
        f"- tests: {' '.join(tests)} (-m '{FAST}')",
        f"- copied from: {head}; {seconds / 60:.1f} min; {time.strftime('%Y-%m-%d %H:%M %Z')}",
        "",
        "## Survivors",
        "",
    ]
    if not survived:
        lines.append("none")
    for item, result in sorted(
        survived, key=lambda s: (str(s[0].mutations[0].module_path), s[0].mutations[0].start_pos)
    ):
        spec = item.mutations[0]
        where = f"{Path(spec.module_path).as_posix()}:{spec.start_pos[0]}"
        lines += [f"### {where} {spec.operator_name} #{spec.occurrence}", "", "```diff"]
        lines += (result.diff or "").strip().splitlines() + ["```", ""]
    return "\n".join(lines) + "\n"


def _annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    spans = []
    for node in ast.walk(ast.parse(source)):
        found = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            found.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            found.append(node.returns)
        spans += [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in found]
    return spans


def _drop_annotation_mutants(session: Path, root: Path) -> int:
    """Remove the mutants inside a type annotation of a module with `from __future__ import
    annotations`: such an annotation is never evaluated, so the mutant (`str | Path` made
    `str - Path`) is equivalent by construction. How many were removed."""
    spans: dict[str, list] = {}
    drop = []
    with sqlite3.connect(session) as con:
        rows = con.execute(
            "SELECT job_id, module_path, start_pos_row, start_pos_col FROM mutation_specs"
        ).fetchall()
        for job, module, row, col in rows:
            if module not in spans:
                source = (root / module).read_text(encoding="utf-8")
                postponed = "from __future__ import annotations" in source
                spans[module] = _annotation_spans(source) if postponed else []
            if any(start <= (row, col) < end for start, end in spans[module]):
                drop.append((job,))
        for table in ("work_results", "mutation_specs", "work_items"):
            con.executemany(f"DELETE FROM {table} WHERE job_id = ?", drop)
    con.close()
    return len(drop)


def _sample(session: Path, keep: int, seed: int) -> tuple[int, int]:
    """Keep KEEP of the session's pending mutants, chosen by SEED (the same ones on every
    run of the same modules); (kept, of how many)."""
    with sqlite3.connect(session) as con:
        jobs = [row[0] for row in con.execute(
            "SELECT job_id FROM work_items WHERE job_id NOT IN (SELECT job_id FROM work_results)"
            " ORDER BY job_id")]  # fmt: skip
        if keep < len(jobs):
            drop = sorted(set(jobs) - set(random.Random(seed).sample(jobs, keep)))
            con.executemany("DELETE FROM mutation_specs WHERE job_id = ?", [(j,) for j in drop])
            con.executemany("DELETE FROM work_items WHERE job_id = ?", [(j,) for j in drop])
    con.close()
    return min(keep, len(jobs)), len(jobs)


def run_target(target: str, out: Path, survivors_only: bool, sample: int | None) -> float:
    modules, tests = TARGETS[target]
    tests = [t for t in tests if (REPO / t).is_file()]
    paths = [f"{PKG}/{m}" for m in modules]
    # outside the clone, beside the test venv: a session can be resumed or re-examined
    state = Path(sys.prefix) / "mutation" / target
    root, config, session = state / "clone", state / "cosmic-ray.toml", state / "session.sqlite"
    env = {
        **os.environ,
        # the copy's package first: the editable install points at this clone
        "PYTHONPATH": os.pathsep.join([str(root / "tools"), os.environ.get("PYTHONPATH", "")]),
        "PYTHONPYCACHEPREFIX": str(state / "pycache"),
        "EVALKIT_TEST_FAST": "1",
    }
    start = time.monotonic()
    if survivors_only:
        if not session.is_file() or not _same_modules(root, session):
            sys.exit(f"{target}: a module its mutants are in changed; run it afresh")
        # the clone as it is now (its tests, and any module no mutant is in): the same mutants
        shutil.rmtree(root)
        _copy(state)
        first = (state / "revision").read_text() if (state / "revision").is_file() else "unknown"
        revision = f"{first}; its survivors re-run against {_revision()}"
        with sqlite3.connect(session) as con:
            con.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'")
        con.close()
    else:
        shutil.rmtree(state, ignore_errors=True)
        state.mkdir(parents=True)
        _copy(state)
        revision = _revision()
        (state / "revision").write_text(revision)
    baseline = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-m", FAST, *tests], cwd=root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if baseline.returncode != 0:
        sys.exit(f"{target}: the tests fail on the unmutated copy:\n{baseline.stdout[-3000:]}")
    _config(config, paths, tests, timeout=max(60.0, 5 * (time.monotonic() - start)))
    steps = [[_tool("cosmic-ray"), "exec", str(config), str(session)]]
    if not survivors_only:
        steps[:0] = [
            [_tool("cosmic-ray"), "init", str(config), str(session)],
            [_tool("cr-filter-operators"), str(session), str(config)],
            [_tool("cr-filter-pragma"), str(session)],
        ]
    sampled = ""
    for step in steps:
        if step[1] == "exec":
            _drop_annotation_mutants(session, root)
        if step[1] == "exec" and sample and not survivors_only:
            kept, of = _sample(session, sample, seed=52)
            (state / "sampled").write_text(f"{kept} of {of}")
        subprocess.run(step, cwd=root, env=env, check=True)
    if (state / "sampled").is_file():
        sampled = (state / "sampled").read_text()
    counts = _results(session)
    out.mkdir(parents=True, exist_ok=True)
    report = out / f"{target}.md"
    text = _report(target, paths, tests, counts, time.monotonic() - start, revision)
    if sampled:
        text = text.replace("\n- modules:", f"\n- a sample: {sampled} mutants, chosen by a "
                            "fixed seed\n- modules:", 1)  # fmt: skip
    report.write_text(text)
    killed, survived = counts[0], counts[1]
    total = killed + len(survived)
    score = 100.0 * killed / total if total else 100.0
    print(f"{target}: {score:.1f}% ({killed}/{total}), {len(survived)} survivors -> {report}")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="targets to run (default: all)")
    parser.add_argument("--list", action="store_true", help="print the targets and exit")
    parser.add_argument("--out", type=Path, default=REPO / "tests/mutation/reports")
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="run N of the mutants, the same N each time (a quick estimate)",
    )
    parser.add_argument("--survivors", action="store_true",
                        help="re-run only the last session's survivors against the clone's "
                        "tests now (the modules unchanged)")  # fmt: skip
    parser.add_argument("--min-score", type=float, default=80.0,
                        help="exit 1 when a target scores below this (percent)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.list:
        for name, (modules, tests) in TARGETS.items():
            print(f"{name}: {', '.join(modules)} <- {' '.join(tests)}")
        return 0
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]} (see --list)")
    scores = {
        t: run_target(t, args.out, args.survivors, args.sample) for t in args.targets or TARGETS
    }
    return 0 if all(s >= args.min_score for s in scores.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
