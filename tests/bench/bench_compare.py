"""Benchmark: `evalkit compare` on two 1M-shaped MRCR runs against a bare line loop.

Writes a baseline task directory with bench_regrade's 1M-shaped rollouts file (2363
rollouts, --prompt-chars per prompt, about 600 MB) and a candidate with the same items
and independent responses (each response re-drawn, re-graded, fresh response id). Then
times whole processes (median of --repeat runs, page cache warm):

  baseline: python -c "for f in files: for line in open(f, 'rb'): pass"   (both files)
  compare:  evalkit compare BASE CAND --format json          (10000 bootstrap replicates)

and reports their ratio and peak RSS. compare streams each side once (issue 12), so the
target is a small constant over the loop; --evalkit-src times another checkout's
`tools/` (e.g. an older commit, unpacked with `git archive`) on the same files.

  python tests/bench/bench_compare.py
  python tests/bench/bench_compare.py --prompt-chars 20000 --rollouts 500   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_regrade import _grade, _timed, generate  # noqa: E402


def _task_dir(root: Path) -> Path:
    task = root / "nemo_gym.0"
    (task / "artifacts").mkdir(parents=True, exist_ok=True)
    (task / "logs").mkdir(exist_ok=True)
    return task


def write_candidate(base_rollouts: Path, out: Path, seed: int = 1) -> None:
    """Same items as the baseline, independent responses graded the same way."""
    with open(base_rollouts, "rb") as src, open(out, "wb") as dst:
        for line in src:
            rec = json.loads(line)
            r = random.Random(f"cand-{seed}-{rec['_ng_task_index']}")
            prefix, answer = rec["random_string_to_prepend"], rec["expected_answer"]
            body = answer.removeprefix(prefix)
            words = body.split(" ")
            for _ in range(r.randint(0, 12)):  # a close copy with a few slips
                words[r.randrange(len(words))] = r.choice(("the", "a", "moss", "river"))
            text = prefix + " ".join(words) if r.random() < 0.5 else body[: len(body) // 2]
            reward, matched = _grade(text, answer, prefix)
            rec["response"]["id"] = f"resp_cand_{rec['_ng_task_index']:08x}"
            rec["response"]["output"][-1]["content"][0]["text"] = text
            rec["reward"] = rec["seq_match_ratio"] = reward
            rec["prefix_matched"] = matched
            dst.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode())
            dst.write(b"\n")


def measure(base: Path, cand: Path, repeat: int, src: Path | None) -> dict:
    files = [str(base / "artifacts" / "evaluator_rollouts.jsonl")]
    files.append(str(cand / "artifacts" / "evaluator_rollouts.jsonl"))
    loop = f"for f in {files!r}:\n    for line in open(f, 'rb'): pass"
    baseline = [sys.executable, "-c", loop]
    compare = [sys.executable, "-m", "evalkit", "compare", str(base), str(cand)]
    compare += ["--format", "json"]
    env_before = os.environ.get("PYTHONPATH")
    if src is not None:
        os.environ["PYTHONPATH"] = str(src)
    try:
        _timed(baseline)  # warm the page cache
        rows = {}
        for name, cmd in (("line loop (both files)", baseline), ("evalkit compare", compare)):
            runs = [_timed(cmd) for _ in range(repeat)]
            rows[name] = {
                "seconds": statistics.median(r[0] for r in runs),
                "exit": runs[-1][1],
                "peak_rss_mb": max(r[2] for r in runs) / 1024,
            }
    finally:
        if env_before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = env_before
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="directory to keep the generated runs in")
    parser.add_argument("--prompt-chars", type=int, default=250_000)
    parser.add_argument("--rollouts", type=int, default=2363)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--evalkit-src", type=Path, help="a tools/ directory to time instead of the installed one"
    )
    args = parser.parse_args(argv)

    workdir = args.out or Path(tempfile.mkdtemp(prefix="bench-compare-"))
    base, cand = _task_dir(workdir / "base"), _task_dir(workdir / "cand")
    base_file = base / "artifacts" / "evaluator_rollouts.jsonl"
    cand_file = cand / "artifacts" / "evaluator_rollouts.jsonl"
    try:
        if not cand_file.exists():
            started = time.perf_counter()
            generate(base_file, args.rollouts, args.prompt_chars)
            write_candidate(base_file, cand_file)
            print(f"generated in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        size_mb = (base_file.stat().st_size + cand_file.stat().st_size) / 1e6
        rows = measure(base, cand, args.repeat, args.evalkit_src)
        loop = rows["line loop (both files)"]["seconds"]
        print(
            f"two runs of {args.rollouts} rollouts, {size_mb:.0f} MB together, "
            f"{args.prompt_chars} prompt chars; cores: {os.cpu_count()}; median of {args.repeat}"
        )
        print(f"{'process':<24}{'seconds':>9}{'x loop':>8}{'peak RSS MB':>13}{'exit':>6}")
        for name, row in rows.items():
            print(
                f"{name:<24}{row['seconds']:>9.2f}{row['seconds'] / loop:>8.2f}"
                f"{row['peak_rss_mb']:>13.1f}{row['exit']:>6}"
            )
        return 0 if rows["evalkit compare"]["exit"] in (0, 1) else 1
    finally:
        if args.out is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
