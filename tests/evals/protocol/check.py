"""Grade the deliverables the protocol's helpers wrote (PROTOCOL: Setup, step 3).

    bash tests/run.sh --python tests/evals/protocol/check.py ROOT [--counts FILE.json]

Prints one row per scenario laid out under ROOT (or those --scenarios names): its path,
correct (every check of its checker passed) and the checks that failed. Tool calls and
skill files opened come from the helpers' own reports: put them in FILE.json as
{"s1": {"calls": 11, "files": 2}, ...}, or a list of such entries per scenario for
repeated runs, and the table shows them with the median per path.
Exit 0 when every scenario is correct.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proto_checks import check  # noqa: E402
from proto_manifest import PATHS, load  # noqa: E402


def _runs(entry) -> list[dict]:
    return entry if isinstance(entry, list) else [entry]


def grade(root: Path, ids: list[str] | None = None) -> list[dict]:
    rows = []
    for manifest in load(ids):
        folder = root / manifest["id"]
        if not folder.is_dir():
            continue
        checks = check(manifest, folder)
        rows.append(
            {
                "scenario": manifest["id"],
                "path": manifest["path"],
                "correct": all(ok for _, ok, _ in checks),
                "failed": [f"{name}: {detail}" for name, ok, detail in checks if not ok],
            }
        )
    return rows


def _median(values: list) -> str:
    return f"{statistics.median(values):g}" if values else "-"


def table(rows: list[dict], counts: dict) -> str:
    lines = ["| scenario | path | correct | tool calls | skill files | failed checks |"]
    lines.append("|---|---|---|---|---|---|")
    for row in rows:
        runs = _runs(counts.get(row["scenario"], []))
        calls = ", ".join(str(r["calls"]) for r in runs) or "-"
        files = ", ".join(str(r["files"]) for r in runs) or "-"
        failed = "; ".join(row["failed"]) or ""
        mark = "yes" if row["correct"] else "NO"
        lines.append(
            f"| {row['scenario']} | {row['path']} | {mark} | {calls} | {files} | {failed} |"
        )
    lines += [
        "",
        "| path | correct | median tool calls | median skill files |",
        "|---|---|---|---|",
    ]
    for path, label in PATHS.items():
        mine = [r for r in rows if r["path"] == path]
        if not mine:
            continue
        runs = [run for r in mine for run in _runs(counts.get(r["scenario"], []))]
        right = sum(r["correct"] for r in mine)
        lines.append(
            f"| {label} | {right}/{len(mine)} | {_median([r['calls'] for r in runs])} "
            f"| {_median([r['files'] for r in runs])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--scenarios", nargs="+", metavar="ID")
    parser.add_argument("--counts", type=Path, help="JSON: {scenario: {calls, files}} or lists")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    args = parser.parse_args(argv)
    try:
        rows = grade(args.root.resolve(), args.scenarios)
        counts = json.loads(args.counts.read_text()) if args.counts else {}
    except (OSError, ValueError) as exc:
        print(f"check: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps({"rows": rows, "counts": counts}, indent=2))
    else:
        sys.stdout.write(table(rows, counts))
    return 0 if rows and all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
