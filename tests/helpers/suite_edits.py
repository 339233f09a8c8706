"""Copies of the bundled pair (tests/data/suite, see its PROVENANCE.md) and the edits the
metamorphic and fail-closed tests make to them: each edit works on a copy in a temporary
folder, in the file formats the real harnesses wrote (simple-evals' diskcache store, NeMo
Gym's rollouts JSONL, nemo-evaluator's run_config.yml and results.yml)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

SUITE = Path(__file__).parent.parent / "data" / "suite"
GPQA = "20261201_092700-e8f0a2c4d6b81357/simple_evals.gpqa_diamond.0"
MRCR = "20261201_091200-c7d30b9e58a1f426/nemo_gym.0"
BASE_GPQA = "20261130_103000-a3c5e7f9b1d20468/simple_evals.gpqa_diamond.0"
BASE_MRCR = "20261130_101500-b5e1a7c04d2f9e63/nemo_gym.0"
STORE = "artifacts/gpqa_diamond/cache/cache.sqlite/cache.db"
RESPONSES = "artifacts/cache/responses/cache.db"


def copy_sides(tmp_path: Path) -> tuple[Path, Path]:
    base, cand = tmp_path / "baseline", tmp_path / "candidate"
    shutil.copytree(SUITE / "baseline", base)
    shutil.copytree(SUITE / "candidate", cand)
    return base, cand


def edit_text(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def sub_text(path: Path, pattern: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    changed, n = re.subn(pattern, new, text)
    assert n, (path, pattern)
    path.write_text(changed, encoding="utf-8")


def store_rows(db: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(db) as con:
        return list(con.execute("SELECT key, value FROM Cache ORDER BY rowid"))


def insert_row(con: sqlite3.Connection, key: str, value: bytes) -> None:
    """One row as diskcache writes it (nvidia-simple-evals 26.3 diskcaching: mode 1, raw)."""
    con.execute(
        "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count, tag,"
        " size, mode, filename, value) VALUES (?, 1, 0, NULL, 0, 0, NULL, 0, 1, NULL, ?)",
        (key, value),
    )


def rewrite_rows(db: Path, edit: Callable[[str, dict], dict | None]) -> None:
    """Each simple-evals row through EDIT (None drops it), in place, in the copy."""
    with sqlite3.connect(db) as con:
        for key, value in list(con.execute("SELECT key, value FROM Cache")):
            row = edit(key, json.loads(value))
            if row is None:
                con.execute("DELETE FROM Cache WHERE key = ?", (key,))
            else:
                con.execute(
                    "UPDATE Cache SET value = ? WHERE key = ?", (json.dumps(row).encode(), key)
                )


def lengthen_replies(task: Path, tag: str) -> None:
    """Give every reply a long reasoning preamble (as real replies have): reuse of long
    replies is evidence, a 50-character 'Answer: B' is not."""

    def longer(_key: str, row: dict) -> dict:
        reply = row["convo"][-1]
        reply["content"] = f"{tag}: " + "let me reason step by step. " * 12 + reply["content"]
        return row

    rewrite_rows(task / STORE, longer)


def rollouts_of(task: Path) -> Path:
    return task / "artifacts" / "evaluator_rollouts.jsonl"


def map_rollouts(task: Path, edit: Callable[[int, dict], dict]) -> None:
    lines = rollouts_of(task).read_text(encoding="utf-8").splitlines()
    out = [json.dumps(edit(i, json.loads(line))) for i, line in enumerate(lines)]
    rollouts_of(task).write_text("\n".join(out) + "\n", encoding="utf-8")


def config_records(task: Path) -> list[Path]:
    """The task's own records of its config: run_config.yml and the harness's results.yml."""
    return [
        p
        for p in (task / "artifacts" / n for n in ("run_config.yml", "results.yml"))
        if p.is_file()
    ]


def edit_params(task: Path, old: str, new: str) -> None:
    """OLD -> NEW in every record of the task that holds it (results.yml keeps the adapter
    settings as interceptors and drops some null params): at least one must."""
    edited = [p for p in config_records(task) if old in p.read_text(encoding="utf-8")]
    assert edited, (task, old)
    for path in edited:  # every occurrence: the config was written that way throughout
        edit_text(path, old, new, -1)


def drop_item_records(task: Path) -> None:
    """A GPQA task left with its results.yml alone: no adapter response cache (use_caching
    off) and no simple-evals item store."""
    (task / RESPONSES).unlink()
    shutil.rmtree(task / "artifacts" / "gpqa_diamond")
