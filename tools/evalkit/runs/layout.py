"""Where a nel 0.2.6 run keeps its files, and how a user-given path maps to task runs.

Layout (nel 0.2.6 slurm executor): `<output_dir>/<YYYYmmdd_HHMMSS>-<invocation>/` holds one
`<task>.<idx>/` directory per task, each with `run.sub`, `logs/` and `artifacts/`.
A user may point at the invocation, at one task directory, or at its `artifacts/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import InputError

ROLLOUTS_FILE = "evaluator_rollouts.jsonl"
AGGREGATE_FILE = "evaluator_rollouts_aggregate_metrics.json"
RESULTS_FILE = "results.yml"
METRICS_FILE = "eval_factory_metrics.json"
# Written by nemo-evaluator, by the export step, and by the launcher, in that preference.
CONFIG_FILES = ("run_config.yml", "config.yml", "launcher_unresolved_config.yaml")
# Any of these inside a directory means it is an artifacts directory.
ARTIFACT_MARKERS = (ROLLOUTS_FILE, AGGREGATE_FILE, RESULTS_FILE, METRICS_FILE, *CONFIG_FILES)


@dataclass
class TaskRun:
    name: str
    task_dir: Path
    artifacts_dir: Path
    logs_dir: Path | None

    @property
    def rollouts_path(self) -> Path:
        return self.artifacts_dir / ROLLOUTS_FILE

    @property
    def aggregate_path(self) -> Path:
        return self.artifacts_dir / AGGREGATE_FILE

    @property
    def results_path(self) -> Path:
        return self.artifacts_dir / RESULTS_FILE

    @property
    def metrics_path(self) -> Path:
        return self.artifacts_dir / METRICS_FILE

    @property
    def config_path(self) -> Path | None:
        for name in CONFIG_FILES:
            candidate = self.artifacts_dir / name
            if candidate.is_file():
                return candidate
        return None

    @property
    def is_gym(self) -> bool:
        # Local copies (`<invocation>.<idx>/`) lose the task name; the rollouts file tells.
        return self.name.startswith("nemo_gym") or self.rollouts_path.is_file()


def _has_artifacts(directory: Path) -> bool:
    return any((directory / marker).is_file() for marker in ARTIFACT_MARKERS)


def _is_task_dir(directory: Path) -> bool:
    return (directory / "artifacts").is_dir() or (directory / "logs").is_dir()


def _task_run(task_dir: Path) -> TaskRun:
    logs = task_dir / "logs"
    return TaskRun(
        name=task_dir.name,
        task_dir=task_dir,
        artifacts_dir=task_dir / "artifacts",
        logs_dir=logs if logs.is_dir() else None,
    )


def _artifacts_run(artifacts: Path) -> TaskRun:
    parent = artifacts.parent
    if artifacts.name == "artifacts":
        logs = parent / "logs"
        return TaskRun(parent.name, parent, artifacts, logs if logs.is_dir() else None)
    # A flat local copy: the directory itself is both task and artifacts directory.
    logs = artifacts / "logs"
    return TaskRun(artifacts.name, artifacts, artifacts, logs if logs.is_dir() else None)


def _real(path: Path) -> Path:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError) as err:  # RuntimeError: a loop, on Python < 3.13
        if isinstance(err, RuntimeError) or "loop" in str(err).lower():
            raise InputError("symbolic link loop", path) from None
        raise InputError(f"cannot read ({getattr(err, 'strerror', None) or err})", path) from None


def _run_files(task: TaskRun) -> list[Path]:
    """The files evalkit may read in a task run (a dangling name is skipped: absent)."""
    names = [task.task_dir / "run.sub", task.task_dir / "run.sh"]
    names += [task.artifacts_dir / marker for marker in ARTIFACT_MARKERS]
    for directory in (task.logs_dir, task.task_dir / "logs"):
        if directory is not None and directory.is_dir():
            names += sorted(directory.glob("*.log"))
    return [n for n in dict.fromkeys(names) if n.is_symlink() or n.exists()]


def confine(task: TaskRun) -> TaskRun:
    """Refuse a run whose files evalkit would read lead out of the task directory (a
    symlink `run.sub -> /etc/shadow` is never read, nor quoted back) or are not regular
    files (a FIFO would hang the read, `-> /dev/zero` would never end). One line each."""
    from evalkit.inputs import special_kind

    inside = _real(task.task_dir)
    for name in _run_files(task):
        if name.is_symlink():
            target = _real(name)
            if target != inside and inside not in target.parents:
                raise InputError(
                    f"symbolic link leaves the run directory (-> {target}); not followed", name
                )
        try:
            mode = name.stat().st_mode
        except OSError as err:
            raise InputError(f"cannot read ({err.strerror or err})", name) from None
        kind = special_kind(mode)
        if kind is not None:
            raise InputError(f"is {kind}, not a run file; not read", name)
    return task


def resolve_task_runs(path: str | Path, several_runs: bool = False) -> list[TaskRun]:
    """Task runs under PATH: an invocation dir, a task dir, or an artifacts dir; each
    checked by `confine`. SEVERAL_RUNS: a folder of invocations may hold a task more than
    once (independent runs of it, which compare pools); else that folder is refused."""
    return [confine(task) for task in _resolve(Path(path), several_runs)]


def names_one_task(path: str | Path) -> bool:
    """Whether PATH is one task run (a task or artifacts directory, or a file in one) rather
    than a folder of them: what `_resolve` reads as a single task."""
    p = Path(path)
    if p.is_file():
        return True
    return p.name == "artifacts" or _has_artifacts(p) or _is_task_dir(p)


def _resolve(p: Path, several_runs: bool = False) -> list[TaskRun]:
    if not p.exists():
        raise InputError("no such file or directory", p)
    if p.is_file():
        if p.parent.name == "artifacts" or _has_artifacts(p.parent):
            return [_artifacts_run(p.parent)]
        raise InputError("expected a run directory (invocation, task or artifacts)", p)
    if p.name == "artifacts" or (_has_artifacts(p) and not _is_task_dir(p)):
        return [_artifacts_run(p)]
    if _is_task_dir(p):
        return [_task_run(p)]
    try:
        tasks = sorted(
            (child for child in p.iterdir() if child.is_dir() and _is_task_dir(child)),
            key=lambda d: d.name,
        )
    except OSError as err:  # permission denied, a directory that vanished
        raise InputError(f"cannot list directory ({err.strerror or err})", p) from None
    if not tasks:
        return _one_invocation_below(p, several_runs)
    return [_task_run(t) for t in tasks]


def _one_invocation_below(p: Path, several_runs: bool = False) -> list[TaskRun]:
    """A folder holding invocation directories (the output_dir, or a copy of one). One
    invocation is meant as itself; several make one side when no task name repeats
    among them (a suite run as the skill prescribes: MRCR standalone in one invocation,
    the other tasks in another); where one repeats (two runs of a task: a baseline and a
    candidate, or a rerun), they are named, so the user picks one in the next call."""
    try:
        below = sorted(
            child
            for child in p.iterdir()
            if child.is_dir() and any(_is_task_dir(t) for t in child.iterdir() if t.is_dir())
        )
    except OSError as err:
        raise InputError(f"cannot list directory ({err.strerror or err})", p) from None
    if len(below) == 1:
        return _resolve(below[0])
    if below:
        runs = [task for child in below for task in _resolve(child)]
        names = [task_name(task.name) for task in runs]
        if several_runs or len(set(names)) == len(names):
            return runs
        listed = ", ".join(child.name for child in below[:10])
        raise InputError(f"several invocation directories here, pass one: {listed}", p)
    raise InputError(
        "no task runs found (expected <task>.<idx>/ with artifacts/ or logs/, "
        "a task directory, or an artifacts directory)",
        p,
    )


def task_name(directory: str) -> str:
    """The task of a launcher task directory: `simple_evals.gpqa_diamond.1` -> without `.1`."""
    head, _, index = directory.rpartition(".")
    return head if head and index.isdigit() else directory
