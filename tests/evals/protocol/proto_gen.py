"""Make one scenario folder: copy its inputs (planting defects by exact text edits) and
generate its run directories with the test suite's run generators (tests/helpers/synth),
so the repository stores a few KB per scenario instead of copied runs.

A run still being written is generated against the clock at layout time: its files age,
and after `evalkit status`'s 20-minute stale window a live run reads as stopped. Lay out
the running-path scenarios just before their helpers start.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from proto_manifest import REPO


def _generators():
    """The run generators, importable from a checkout (tests/ and tools/ on the path)."""
    for sub in ("tests", "tools"):
        path = str(REPO / sub)
        if path not in sys.path:
            sys.path.insert(0, path)
    from helpers import rungen

    return rungen


def apply_edits(text: str, edits: list[dict], where: str) -> str:
    """Each edit's `find` must occur exactly once: a planted defect never lands by chance."""
    for edit in edits or []:
        count = text.count(edit["find"])
        if count != 1:
            raise ValueError(f"{where}: edit target found {count} times: {edit['find']!r}")
        text = text.replace(edit["find"], edit["replace"])
    return text


def copy_inputs(manifest: dict, folder: Path) -> None:
    for item in manifest.get("inputs", []):
        source = REPO / item["from"]
        target = folder / item["to"]
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8")
        target.write_text(apply_edits(text, item.get("edits"), item["from"]), encoding="utf-8")


def generate_runs(manifest: dict, folder: Path, now: float | None = None) -> None:
    specs = manifest.get("runs", [])
    if not specs:
        return
    rungen = _generators()
    now = time.time() if now is None else now
    made: dict[str, Path] = {}
    for spec in specs:
        dest = folder / spec["dest"]
        args = dict(spec.get("args", {}))
        if "answer_chars" in args:
            args["answer_chars"] = tuple(args["answer_chars"])
        if "items" in spec:
            it = spec["items"]
            args["items"] = rungen.make_items(
                it["n"], it["seed"], it.get("prompt_chars", 600), tuple(it["answer_chars"])
            )
            args.setdefault("limit", it["n"])  # a canary of exactly its items
        if "skill_cycle" in args:  # per-item skill, repeating (items the model knows or not)
            cycle = args.pop("skill_cycle")
            args["skill"] = [cycle[i % len(cycle)] for i in range(len(args["items"]))]
        if spec["kind"] == "running":
            task, _ = rungen.write_running_mrcr_run(dest, now=now, **args)
        else:
            task = rungen.write_mrcr_run(dest, **args)
        if "reuse_from" in spec:
            # The candidate's rollouts are the baseline's own (a shared resume cache).
            source = made[spec["reuse_from"]] / "artifacts"
            for name in ("evaluator_rollouts.jsonl", "evaluator_rollouts_aggregate_metrics.json"):
                shutil.copyfile(source / name, task / "artifacts" / name)
        made[spec["dest"]] = task


def task_dir(folder: Path, dest: str) -> Path:
    """The nemo_gym.0 task directory a generated run was written to."""
    (task,) = sorted((folder / dest).glob("*/nemo_gym.0"))
    return task


def lay_out(manifest: dict, folder: Path, now: float | None = None) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "out").mkdir(parents=True)
    copy_inputs(manifest, folder)
    generate_runs(manifest, folder, now)
