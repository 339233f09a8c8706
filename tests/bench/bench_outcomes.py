"""Benchmark: reading the per-item data of a whole AA-sized suite run costs at most twice
reading its files once, and memory stays bounded by one task's items.

The script builds, in a temporary directory and with synthetic data in the harnesses'
shapes, an invocation of --tasks tasks (default 8: six lm-eval tasks and two HLE
tasks) of --items items each (default 3000), each with its adapter response cache
(`cache/responses/cache.db`, the Cache table of nemo-evaluator 0.2.8's
`adapters/caching/diskcaching.py`) and per-item file (lm-eval's samples JSONL, HLE's
judged JSON), answers of --chars characters; every cached response also carries
--thinking characters of reasoning_content, as a reasoning model's do. Then, --repeat
times each, alternating:

  files once  every byte of every per-item file read line by line, and every cached
              response body fetched from sqlite (what any reader must at least do);
  outcomes    benchmarks.harnesses.task_outcomes for every task (parse, join, classify),
              each task's result dropped before the next, as status and compare do.

It prints the medians of the CPU time of each (wall time swings with other jobs on a
shared machine) and their ratio; then, untimed, the peak RSS of a fresh process
that reads the first task only and of one that reads all of them: about equal when
memory is bounded by one task's items.

  bash tests/run.sh --python tests/bench/bench_outcomes.py               # 8 x 3000
  bash tests/run.sh --python tests/bench/bench_outcomes.py --items 500 --repeat 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# nemo-evaluator 0.2.8 diskcaching.py's Cache table (only filename and value are read)
SCHEMA = (
    "CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB, raw INTEGER, store_time REAL,"
    " expire_time REAL, access_time REAL, access_count INTEGER DEFAULT 0, tag BLOB,"
    " size INTEGER DEFAULT 0, mode INTEGER DEFAULT 0, filename TEXT, value BLOB)"
)
WORDS = "carry the digit then compare both sides and check the units once more "


def answer(n: int, chars: int) -> str:
    body = (WORDS * (chars // len(WORDS) + 1))[: chars - 40]
    return f"{n}: {body} The answer is {n % 97}"


def response_body(text: str | None, finish: str, reasoning: str) -> bytes:
    message = {"role": "assistant", "content": text, "reasoning_content": reasoning}
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 200, "completion_tokens": 900, "total_tokens": 1100},
        }
    ).encode()


def write_cache(artifacts: Path, bodies: list[bytes]) -> None:
    db = artifacts / "cache" / "responses" / "cache.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute(SCHEMA)
    conn.executemany(
        "INSERT INTO Cache (key, raw, mode, value) VALUES (?, 1, 1, ?)",
        [(hashlib.sha256(b).hexdigest(), b) for b in bodies],
    )
    conn.commit()
    conn.close()


def _kind(n: int) -> tuple[str | None, str]:
    """Mostly scored; a few truncated and reasoning-only items."""
    if n % 50 == 1:
        return "cut", "length"
    if n % 50 == 2:
        return None, "stop"
    return "ok", "stop"


def write_lm_eval(task: Path, items: int, chars: int, thinking: int) -> None:
    art = task / "artifacts"
    (art / "served-model").mkdir(parents=True)
    (art / "results.yml").write_text("results: {}\n")
    bodies = []
    with (art / "served-model" / "samples_bench_2026-12-01T10-00-00.000000.jsonl").open("w") as out:
        for n in range(items):
            kind, finish = _kind(n)
            text = "" if kind is None else answer(n, chars)
            bodies.append(response_body(text or None, finish, answer(n, thinking)))
            prompt = f"Question {n}: " + WORDS * 8
            line = {
                "doc_id": n,
                "doc": {"question": prompt, "answer": str(n % 97)},
                "target": str(n % 97),
                "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"max_gen_toks": 4096}}},
                "resps": [[text]],
                "filtered_resps": [str(n % 97) if kind == "ok" else "[invalid]"],
                "filter": "strict-match",
                "metrics": ["exact_match"],
                "doc_hash": hashlib.sha256(prompt.encode()).hexdigest(),
                "prompt_hash": hashlib.sha256(prompt.encode()).hexdigest(),
                "target_hash": hashlib.sha256(str(n).encode()).hexdigest(),
                "exact_match": float(n % 3 == 0),
            }
            out.write(json.dumps(line) + "\n")
    write_cache(art, bodies)


def write_hle(task: Path, items: int, chars: int, thinking: int) -> None:
    art = task / "artifacts"
    art.mkdir(parents=True)
    (art / "results.yml").write_text("results: {}\n")
    (art / "run_config.yml").write_text(f"config:\n  params:\n    limit_samples: {items}\n")
    judged, bodies = {}, []
    for n in range(items):
        kind, finish = _kind(n)
        text = "" if kind is None else answer(n, chars)  # null content reaches it as ""
        bodies.append(response_body(text, finish, answer(n, thinking)))
        judge = {"correct": "yes" if n % 3 == 0 else "no", "api_error": n % 97 == 5}
        judged[f"q{n:05d}"] = {"model_name": "m", "response": text, "judge_response": judge}
    (art / "judged_hle_served-model.json").write_text(json.dumps(judged, indent=4))
    write_cache(art, bodies)


def read_files_once(tasks: list[Path]) -> int:
    total = 0
    for task in tasks:
        for path in sorted(task.rglob("*")):
            if path.suffix in (".jsonl", ".json"):
                with path.open("rb") as handle:
                    for line in handle:
                        total += len(line)
        conn = sqlite3.connect(task / "artifacts" / "cache" / "responses" / "cache.db")
        for (value,) in conn.execute("SELECT value FROM Cache"):
            total += len(value)
        conn.close()
    return total


def rss_child(root: Path, tasks: int) -> float:
    """Peak RSS (MB) of a fresh process that reads the first TASKS tasks' outcomes."""
    code = (
        "import resource, sys\n"
        "from evalkit.benchmarks.harnesses import task_outcomes\n"
        "from evalkit.runs.run import load_runs\n"
        f"for run in load_runs(sys.argv[1])[:{tasks}]:\n"
        "    task_outcomes(run)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True
    )
    return round(float(out.stdout.strip()), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--chars", type=int, default=3000, help="characters per answer")
    parser.add_argument(
        "--thinking", type=int, default=8000, help="characters of reasoning_content per response"
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from evalkit.benchmarks.harnesses import task_outcomes
    from evalkit.runs.run import load_runs

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "20261201_100000-0123456789abcdef"
        for i in range(args.tasks):
            writer = write_hle if i % 4 == 3 else write_lm_eval
            writer(root / f"task{i}.{i}", args.items, args.chars, args.thinking)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        tasks = sorted(p for p in root.iterdir() if p.is_dir())
        read_files_once(tasks)  # page cache warm for both
        once, outcomes, counted = [], [], 0
        for _ in range(args.repeat):
            t0 = time.process_time()  # CPU time: other jobs on the machine do not count
            read_files_once(tasks)
            once.append(time.process_time() - t0)
            t0 = time.process_time()
            counted = 0
            for run in load_runs(root):
                counted += len(task_outcomes(run).items)  # dropped with the run
            outcomes.append(time.process_time() - t0)
        # Memory, untimed: a fresh process reads the first task only, another all of them
        rss = [rss_child(root, n) for n in (1, args.tasks)]
        a, b = statistics.median(once), statistics.median(outcomes)
        print(
            json.dumps(
                {
                    "tasks": args.tasks,
                    "items": counted,
                    "bytes": size,
                    "files_once_cpu_s": round(a, 3),
                    "outcomes_cpu_s": round(b, 3),
                    "ratio": round(b / a, 2),
                    "peak_rss_mb_first_task": rss[0],
                    "peak_rss_mb_all_tasks": rss[1],
                }
            )
        )


if __name__ == "__main__":
    main()
