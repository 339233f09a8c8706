"""Benchmark: `evalkit regrade` against a bare Python line loop over the same file.

Generates a rollouts file shaped like the MRCR 1M variant (2363 rollouts, one per task;
prompt size set by --prompt-chars, default 250000, about 600 MB), then times whole
processes (median of --repeat runs, page cache warm after a first read):

  baseline: python -c "for line in open(f, 'rb'): pass"
  regrade:  evalkit regrade FILE --format json

and reports their ratio and each one's peak RSS. Targets from the issue: regrade at most
2x the baseline, peak RSS under 100 MB.

  python tests/bench/bench_regrade.py                 # temp dir, removed afterwards
  python tests/bench/bench_regrade.py --out DIR       # keep the file in DIR
  python tests/bench/bench_regrade.py --prompt-chars 20000 --rollouts 500   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from difflib import SequenceMatcher
from pathlib import Path

AGENT = "mrcr_n3_1m_benchmark_simple_agent"

# Response mix (shares of rollouts), modelled on the 1M golden run: prefix_matched about
# 0.55, pass@1 26.91, 2.4 % of responses cut at the output limit.
MIXES = {
    "golden": {"copy": 0.28, "wrong": 0.246, "runaway": 0.024, "no_prefix": 0.30, "leak": 0.15},
    "copies": {"copy": 1.0},  # every response a close copy: the cheapest grading
}


def _vocabulary(rng: random.Random, size: int = 3000) -> tuple[list[str], list[float]]:
    """Pseudo-words with Zipf weights: character statistics close to English prose."""
    syllables = [c + v for c in "bcdfghklmnprstvwy" for v in ("a", "e", "i", "o", "u", "ea", "ou")]
    words = [
        "".join(rng.choice(syllables) for _ in range(rng.choice((1, 1, 2, 2, 3))))
        for _ in range(size)
    ]
    cumulative, total = [], 0.0
    for rank in range(size):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return words, cumulative


_WORDS, _CUM = _vocabulary(random.Random("vocabulary"))


def _prose(rng: random.Random, chars: int) -> str:
    out, size = [], 0
    while size < chars:
        words = rng.choices(_WORDS, cum_weights=_CUM, k=rng.randint(5, 9))
        line = " ".join(words).capitalize() + rng.choice((",", ".", ";", ""))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)[:chars]


def _grade(text: str, answer: str, prefix: str) -> tuple[float, bool]:
    text = text.strip()
    if not text.startswith(prefix):
        return 0.0, False
    m = SequenceMatcher(None, text.removeprefix(prefix), answer.removeprefix(prefix))
    return float(m.ratio()), True


def _response(r: random.Random, kind: str, prefix: str, body: str) -> str:
    if kind == "copy":  # a close copy with a few edits, leading blank lines (Gym strips)
        chars = list(body)
        for _ in range(r.randint(0, 6)):
            chars[r.randrange(len(chars))] = r.choice("xyz ")
        return "\n\n" + prefix + "".join(chars)
    if kind == "wrong":  # another needle of the same kind
        return prefix + _prose(r, len(body))
    if kind == "runaway":  # looping output cut at the limit
        return prefix + body[:500] + _prose(r, 1200) * r.randint(20, 60)
    if kind == "leak":  # reasoning leaked into the text: the prefix gate fails
        return "The second poem is the one about tapirs.</think>" + prefix + body
    return body  # no prefix


def generate(
    path: Path, rollouts: int, prompt_chars: int, mix: str = "golden", seed: int = 0
) -> None:
    """Write a Gym-format rollouts file (compact JSON lines, completion order shuffled)."""
    kinds, weights = list(MIXES[mix]), list(MIXES[mix].values())
    rng = random.Random(seed)
    pool = _prose(rng, 4_000_000)  # prompt text is sliced from a pool: generation stays fast
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    order = list(range(rollouts))
    rng.shuffle(order)
    with open(path, "wb") as out:
        for task in order:
            r = random.Random(f"{seed}-{task}")
            prefix = "".join(r.choice(alnum) for _ in range(10))
            body = _prose(r, r.randint(1000, 6000))
            answer = prefix + body
            text = _response(r, r.choices(kinds, weights)[0], prefix, body)
            start = r.randrange(len(pool) - prompt_chars)
            turns = 16
            step = prompt_chars // turns
            messages = [
                {
                    "content": pool[start + i * step : start + (i + 1) * step],
                    "role": "user" if i % 2 == 0 else "assistant",
                    "type": "message",
                }
                for i in range(turns)
            ]
            messages.append(
                {
                    "content": f"Prepend {prefix} to the 2nd (1 indexed) poem about "
                    "tapirs. Do not include any other text in your response.",
                    "role": "user",
                    "type": "message",
                }
            )
            reward, matched = _grade(text, answer, prefix)
            record = {
                "responses_create_params": {
                    "background": None,
                    "input": messages,
                    "temperature": 1.0,
                    "top_p": 0.95,
                    "tools": [],
                },
                "response": {
                    "id": f"resp_{task:08x}",
                    "incomplete_details": None,
                    "object": "response",
                    "output": [
                        {
                            "id": "rs_1",
                            "summary": [{"text": "Looking for the poem.", "type": "summary_text"}],
                            "type": "reasoning",
                            "encrypted_content": None,
                        },
                        {
                            "id": "msg_1",
                            "content": [
                                {
                                    "annotations": [],
                                    "text": text,
                                    "type": "output_text",
                                    "logprobs": None,
                                }
                            ],
                            "role": "assistant",
                            "status": "completed",
                            "type": "message",
                        },
                    ],
                    "usage": {
                        "input_tokens": prompt_chars // 4,
                        "output_tokens": len(text) // 4,
                        "total_tokens": prompt_chars // 4 + len(text) // 4,
                    },
                },
                "reward": reward,
                "expected_answer": answer,
                "random_string_to_prepend": prefix,
                "n_needles": (2, 4, 8)[task % 3],
                "n_tokens": prompt_chars // 4,
                "prefix_matched": matched,
                "seq_match_ratio": reward,
                "_ng_task_index": task,
                "_ng_rollout_index": 0,
                "agent_ref": {"type": "responses_api_agents", "name": AGENT},
            }
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode())
            out.write(b"\n")


TIME = Path("/usr/bin/time")


def _timed(cmd: list[str]) -> tuple[float, int, int]:
    """(seconds, exit code, peak RSS in KB) of one child process.

    Peak RSS comes from GNU time (`%M`) when installed: the rusage of a forked child also
    counts the parent's pages it held before exec, which would inflate small figures.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        prefix = [str(TIME), "-q", "-f", "%M", "-o", rss.name] if TIME.exists() else []
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*prefix, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        text = rss.read().strip().splitlines()
    peak = int(text[-1]) if prefix and text and text[-1].isdigit() else usage.ru_maxrss
    return seconds, os.waitstatus_to_exitcode(status), peak


DECODE_ONLY = (
    "import sys\n"
    "from evalkit.runs.rollouts import iter_rollouts\n"
    "for _ in iter_rollouts(sys.argv[1]): pass\n"
)


def measure(path: Path, repeat: int, jobs: int | None) -> dict:
    baseline = [sys.executable, "-c", f"for line in open({str(path)!r}, 'rb'): pass"]
    decode = [sys.executable, "-c", DECODE_ONLY, str(path)]
    regrade = [sys.executable, "-m", "evalkit", "regrade", str(path), "--format", "json"]
    if jobs is not None:
        regrade += ["--jobs", str(jobs)]
    _timed(baseline)  # warm the page cache
    rows = {}
    for name, cmd in (
        ("line loop", baseline),
        ("decode only", decode),
        ("evalkit regrade", regrade),
    ):
        runs = [_timed(cmd) for _ in range(repeat)]
        rows[name] = {
            "seconds": statistics.median(r[0] for r in runs),
            "exit": runs[-1][1],
            "peak_rss_mb": max(r[2] for r in runs) / 1024,
        }
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="directory to keep the generated file in")
    parser.add_argument("--prompt-chars", type=int, default=250_000)
    parser.add_argument("--rollouts", type=int, default=2363)
    parser.add_argument(
        "--mix",
        choices=sorted(MIXES),
        default="golden",
        help="response mix (default: golden-like; copies = cheapest grading)",
    )
    parser.add_argument("--jobs", type=int, help="passed to evalkit regrade --jobs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    workdir = args.out or Path(tempfile.mkdtemp(prefix="bench-regrade-"))
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"rollouts-{args.mix}-{args.rollouts}-{args.prompt_chars}.jsonl"
    try:
        if not path.exists():
            started = time.perf_counter()
            generate(path, args.rollouts, args.prompt_chars, args.mix)
            print(
                f"generated {path.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr
            )
        size_mb = path.stat().st_size / 1e6
        rows = measure(path, args.repeat, args.jobs)
        base = rows["line loop"]["seconds"]
        print(
            f"file: {args.rollouts} rollouts, {size_mb:.0f} MB, {args.prompt_chars} prompt "
            f"chars, mix {args.mix}; cores: {os.cpu_count()}; median of {args.repeat}"
        )
        print(f"{'process':<18}{'seconds':>9}{'x loop':>8}{'peak RSS MB':>13}{'exit':>6}")
        for name, row in rows.items():
            print(
                f"{name:<18}{row['seconds']:>9.2f}{row['seconds'] / base:>8.2f}"
                f"{row['peak_rss_mb']:>13.1f}{row['exit']:>6}"
            )
        ratio = rows["evalkit regrade"]["seconds"] / base
        rss = rows["evalkit regrade"]["peak_rss_mb"]
        ok = ratio <= 2.0 and rss < 100 and rows["evalkit regrade"]["exit"] == 0
        print(f"targets (<= 2x loop, < 100 MB, exit 0): {'met' if ok else 'NOT met'}")
        return 0 if ok else 1
    finally:
        if args.out is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
