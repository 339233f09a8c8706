"""Reach of `preflight --fix --unsafe-fixes` on public configs, the real nel 0.2.6 as oracle.

The corpus is tests/preflight/corpus_public/ (configs in the patterns of people's own
repositories) and tests/preflight/corpus_history/ (the launcher's own examples of every
tag, restated by tools/dev/make_history_corpus.py); their READMEs name each source. For
each file: the launcher's dry-run of the file as written, `evalkit preflight --fix
--unsafe-fixes` on a copy (its own process, as a user runs it), a second `--fix
--unsafe-fixes` (it must change nothing), and the dry-run of the fixed copy. Prints one
row per refused file, the figures, and what stays refused grouped by the launcher's last
error line. Writes nothing into the repository. Usage, from the repository root:

    bash tests/run.sh --python tests/bench/bench_reach.py [--json] [DIR ...]

The launching shell is a user's: the credentials the configs name are set (ENV, plus
every secret-named variable the files name), nothing else (a
`host:HF_HOME` stays unset, as on a machine without it).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "preflight")]

from preflight.nel_batch import fill_blanks, launch_env, run_batch  # noqa: E402

CORPORA = [REPO / "tests/preflight/corpus_public", REPO / "tests/preflight/corpus_history"]
# Credentials the corpus names: a user who runs these configs has them set.
ENV = {
    "USER": "evalkit-ci",
    "HF_TOKEN": "hf_fixture_token",
    "MLFLOW_TRACKING_URI": "http://127.0.0.1:5000",
    "VENDOR_API_KEY": "vendor-dry-run-key",
    "NGC_API_KEY": "ngc-dry-run-key",
    "API_KEY": "dry-run-key",
    "OPENAI_API_KEY": "dry-run-key",
    "NVIDIA_API_KEY": "dry-run-key",
    "JUDGE_API_KEY": "dry-run-key",
    "WANDB_API_KEY": "dry-run-key",
    "HF_TOKEN_FOR_GPQA_DIAMOND": "hf_fixture_token",
    "HF_TOKEN_FOR_AEGIS_V2": "hf_fixture_token",
    # the OAuth client id the AA configs' HLE judge reads (a credential, though named *_ID)
    "OPENAI_CLIENT_ID_FOR_HLE": "dry-run-client-id",
}


def credentials(dirs: list[Path]) -> dict:
    """Secret-named variables the corpus reads from the shell, with stand-in values."""
    from evalkit.secrets import is_secret_name

    names = set()
    for corpus in dirs:
        for path in corpus.glob("*.yaml"):
            text = path.read_text(encoding="utf-8")
            names.update(re.findall(r"host:([A-Za-z_][A-Za-z0-9_]*)", text))
            names.update(re.findall(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b", text))
    return {n: "dry-run-credential" for n in sorted(names) if is_secret_name(n)}


def fix(path: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalkit", "preflight", "--fix", "--unsafe-fixes", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def measure(dirs: list[Path], fix=fix) -> list[dict]:
    """`fix(path, env)` runs `preflight --fix --unsafe-fixes` on one file (default: in its
    own process)."""
    env = launch_env({**credentials(dirs), **ENV})
    env["PYTHONPATH"] = str(REPO / "tools")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs = []
        for corpus in dirs:
            for path in sorted(corpus.glob("*.yaml")):
                if path.name.startswith("_"):
                    continue  # a sibling defaults file, composed by the configs beside it
                copy = work / corpus.name / path.name
                copy.parent.mkdir(exist_ok=True)
                for sibling in corpus.glob("_*.yaml"):
                    shutil.copyfile(sibling, copy.parent / sibling.name)
                shutil.copyfile(path, copy)
                fix(copy, env)
                once = copy.read_text(encoding="utf-8")
                fix(copy, env)
                row = {"file": f"{corpus.name}/{path.name}", "stable": copy.read_text() == once}
                row["changed"] = once != path.read_text(encoding="utf-8")
                rows.append(row)
                for config in (path, copy):
                    jobs.append({"config": str(config), "overrides": fill_blanks(config, work)})
        verdicts = run_batch(jobs, work, 0, env)
    for i, row in enumerate(rows):
        row["before"], row["after"] = verdicts[2 * i], verdicts[2 * i + 1]
    return rows


def report(rows: list[dict]) -> dict:
    refused = [r for r in rows if not r["before"]["ok"]]
    accepted = [r for r in refused if r["after"]["ok"]]
    broken = [r["file"] for r in rows if r["before"]["ok"] and not r["after"]["ok"]]
    unstable = [r["file"] for r in rows if not r["stable"]]
    left = Counter(r["after"]["error"][:110] for r in refused if not r["after"]["ok"])
    return {
        "configs": len(rows),
        "refused": len(refused),
        "accepted_after_fix": len(accepted),
        "broken": broken,
        "second_fix_changed": unstable,
        "remaining": left.most_common(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path, default=CORPORA)
    parser.add_argument("--json", action="store_true", help="rows and figures as JSON")
    args = parser.parse_args(argv)
    rows = measure(args.dirs)
    figures = report(rows)
    if args.json:
        print(json.dumps({"rows": rows, "figures": figures}, indent=1))
        return 0
    for row in rows:
        if not row["before"]["ok"]:
            after = "accepted" if row["after"]["ok"] else row["after"]["error"][:100]
            print(f"{row['file']}: refused ({row['before']['error'][:70]}) -> {after}")
    print(
        f"\n{figures['configs']} configs; the launcher refuses {figures['refused']}; after "
        f"--fix --unsafe-fixes it accepts {figures['accepted_after_fix']} of them; accepted "
        f"ones broken: {len(figures['broken'])} {figures['broken']}; a second --fix changed "
        f"{len(figures['second_fix_changed'])} {figures['second_fix_changed']}"
    )
    print("still refused, by the launcher's error line:")
    for error, count in figures["remaining"]:
        print(f"  {count}  {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
