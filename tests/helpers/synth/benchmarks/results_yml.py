"""A harness task that leaves only results.yml (the nemo-evaluator layout)."""

from __future__ import annotations

from pathlib import Path


def write_results_task(
    invocation: Path, task: str, value: float, stderr: float | None, key: tuple[str, str]
) -> Path:
    """`<invocation>/<task>.0` with only results.yml (a non-Gym harness task): one score at
    results.tasks.<task>.metrics.<key[0]>.scores.<key[1]> (nemo-evaluator layout)."""
    task_dir = Path(invocation) / f"{task}.0"
    (task_dir / "artifacts").mkdir(parents=True)
    (task_dir / "logs").mkdir()
    stats = "" if stderr is None else f"              stats:\n                stderr: {stderr}\n"
    (task_dir / "artifacts" / "results.yml").write_text(
        f"results:\n  tasks:\n    {task}:\n      metrics:\n        {key[0]}:\n"
        f"          scores:\n            {key[1]}:\n              value: {value}\n{stats}"
        "  groups: {}\n"
    )
    return task_dir
