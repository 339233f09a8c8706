"""Benchmark: an `evalkit status` refresh costs what was appended, not the file's size.

For each file size (--sizes, in MB of rollouts; default 60 and 600, the larger one shaped
like the MRCR 1M variant's 612 MB file: lines of about 250 kB), a child process:

  1. writes a task directory whose rollouts file holds that many MB;
  2. times the first refresh (it reads the whole file once);
  3. appends --append rollouts (default 10) and times the next refresh, --repeat times;
  4. reports the medians and its own peak RSS.

A refresh after the same append should take about the same time at every size, while the
first read grows with the size.

  python tests/bench/bench_status.py                       # 60 MB and 600 MB, temp dirs
  python tests/bench/bench_status.py --sizes 20 200 --repeat 3   # quicker
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = "mrcr_n3_1m_benchmark_simple_agent"


def rollout_line(index: int, prompt_chars: int) -> bytes:
    """One Gym rollout line (the fields evalkit reads, plus a prompt of prompt_chars)."""
    words = "moss river lantern quiet harbor ember willow silver morning thistle "
    prompt = (words * (prompt_chars // len(words) + 1))[:prompt_chars]
    record = {
        "responses_create_params": {"input": [{"role": "user", "content": prompt}]},
        "response": {
            "output": [{"type": "message", "content": [{"type": "output_text", "text": "a"}]}],
            "usage": {"input_tokens": prompt_chars // 4, "output_tokens": 900},
            "incomplete_details": None,
        },
        "reward": 0.5,
        "expected_answer": "aB3dE5gH7j a poem about tapirs",
        "random_string_to_prepend": "aB3dE5gH7j",
        "n_needles": (2, 4, 8)[index % 3],
        "n_tokens": prompt_chars // 4,
        "prefix_matched": index % 2 == 0,
        "seq_match_ratio": 0.5,
        "_ng_task_index": index,
        "_ng_rollout_index": 0,
        "agent_ref": {"type": "responses_api_agents", "name": AGENT},
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def child(size_mb: int, append: int, repeat: int, prompt_chars: int) -> dict:
    from evalkit.status import RunMonitor

    with tempfile.TemporaryDirectory() as tmp:
        task = Path(tmp) / "20261130_101500-0123456789abcdef" / "nemo_gym.0"
        (task / "artifacts").mkdir(parents=True)
        (task / "logs").mkdir()
        (task / "run.sub").write_text("#!/bin/bash\n#SBATCH --time 04:00:00\n")
        rollouts = task / "artifacts" / "evaluator_rollouts.jsonl"
        line_bytes = len(rollout_line(0, prompt_chars))
        lines = max(1, size_mb * 1_000_000 // line_bytes)
        with rollouts.open("wb") as out:
            for i in range(lines):
                out.write(rollout_line(i, prompt_chars))
        with rollouts.open("rb") as warm:  # page cache warm, as for a file being written
            while warm.read(1 << 20):
                pass
        monitor = RunMonitor(task, expected_override=lines + append * (repeat + 1))
        t0 = time.perf_counter()
        (first,) = monitor.refresh(time.time())
        first_s = time.perf_counter() - t0
        refreshes = []
        next_index = lines
        for _ in range(repeat):
            with rollouts.open("ab") as out:
                for _ in range(append):
                    out.write(rollout_line(next_index, prompt_chars))
                    next_index += 1
            t0 = time.perf_counter()
            (status,) = monitor.refresh(time.time())
            refreshes.append(time.perf_counter() - t0)
        assert status.done == next_index, (status.done, next_index)
        return {
            "size_mb": round(rollouts.stat().st_size / 1e6),
            "rollouts": next_index,
            "first_refresh_s": round(first_s, 3),
            "refresh_after_append_s": round(statistics.median(refreshes), 4),
            "appended_mb": round(append * line_bytes / 1e6, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[60, 600], metavar="MB")
    parser.add_argument("--append", type=int, default=10, help="rollouts appended per refresh")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--prompt-chars", type=int, default=250_000)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.append, args.repeat, args.prompt_chars)))
        return 0
    for size in args.sizes:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(size),
                "--append",
                str(args.append),
                "--repeat",
                str(args.repeat),
                "--prompt-chars",
                str(args.prompt_chars),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        print(out.stdout.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
