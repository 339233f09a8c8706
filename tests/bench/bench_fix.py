"""Benchmark: `evalkit preflight --fix` and `--diff` on a config with 300 fixable findings.

The config is the golden fixtures' generic base (tests/preflight/fixtures/_base) with
300 unprefixed env values added, each with a trailing comment: 300 NEL101 findings, the
size issue 30 reported (the old engine fixed 200 of them in minutes, then stopped).
Each run is a whole process on a fresh copy; prints the medians, the fixes made, the
diff's size and whether a second `--fix` changes anything. Writes nothing into the
repository (a temporary directory). Usage, from the repository root:

    bash tests/run.sh --python tests/bench/bench_fix.py [-n 5] [--findings 300] [--padding 30]

`--padding 30` puts 30 comment lines before each finding: a 470 kB file whose diff is
about 950 kB (the issue's 480 kB diff took 8 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASE = REPO / "tests/preflight/fixtures/_base/generic.yaml"
ENV = {"HF_TOKEN": "hf_fixture_token", "USER": "evalkit-bench"}


def config(findings: int, padding: int = 0) -> str:
    pad = "".join(f"    # {'padding comment line ' * 2}{j}\n" for j in range(padding))
    lines = "".join(f"{pad}    VAR_{i}: value_{i}  # note {i}\n" for i in range(findings))
    anchor = "    DUMMY_API_KEY: lit:dummy\n"
    return BASE.read_text(encoding="utf-8").replace(anchor, anchor + lines, 1)


def timed(args: list[str], path: Path, text: str, env: dict) -> tuple[float, str]:
    path.write_text(text, encoding="utf-8")
    cmd = [sys.executable, "-m", "evalkit", "preflight", str(path), *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=path.parent, capture_output=True, text=True)
    return time.perf_counter() - start, proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="runs per mode (default 5)")
    parser.add_argument("--findings", type=int, default=300)
    parser.add_argument(
        "--padding", type=int, default=0, help="comment lines before each finding (30: ~470 kB)"
    )
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEMO_EVALUATOR_")}
    env.update(ENV)
    text = config(args.findings, args.padding)
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-fix-") as tmp:
        path = Path(tmp) / "config.yaml"
        timed(["--diff"], path, text, env)  # warm the page cache and the .pyc files
        fix = [timed(["--fix", "--format", "json"], path, text, env) for _ in range(args.n)]
        diff = [timed(["--diff"], path, text, env) for _ in range(args.n)]
        fixed = json.loads(fix[-1][1])["summary"]["fixed"]
        timed(["--fix"], path, text, env)  # the last --diff wrote nothing: fix once more
        once = path.read_bytes()
        _, second = timed(["--fix", "--format", "json"], path, once.decode(), env)
        again = json.loads(second)["summary"]["fixed"]
        unchanged = path.read_bytes() == once
    print(f"config: {len(text)} characters, {args.findings} NEL101 findings")
    print(f"python: {sys.version.split()[0]}, cpus: {os.cpu_count()}, runs: {args.n}")
    print(f"preflight --fix:  median {statistics.median(t for t, _ in fix):.2f} s, {fixed} fixed")
    print(
        f"preflight --diff: median {statistics.median(t for t, _ in diff):.2f} s, "
        f"{len(diff[-1][1])} characters of diff"
    )
    print(f"second --fix: {again} fixed, file {'unchanged' if unchanged else 'CHANGED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
