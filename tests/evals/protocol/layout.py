"""Lay out the agent-effort protocol's scratch root (PROTOCOL: Setup).

    bash tests/run.sh --python tests/evals/protocol/layout.py ROOT [--scenarios s1 s4] [--ref REV]

ROOT/skills/evaluation is `git archive REV` (default HEAD) of this repository: the
installed copy, no .git, no test venv, and nothing uncommitted. The one departure: this
folder and its test are left out, since they hold the checkers' expected answers.
ROOT/sN/ holds scenario N's inputs and an empty out/; ROOT/prompts/sN.txt is the exact
prompt for its helper.
Run directories are generated now, from tests/helpers/rungen.py: a running-path scenario
(see its manifest) ages from this moment, so lay it out just before its helper starts.
Grade with check.py ROOT.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proto_gen import lay_out  # noqa: E402
from proto_manifest import REPO, load, prompt  # noqa: E402

# The answer key stays out of the copy the helpers read.
HIDDEN = ("tests/evals/protocol", "tests/test_protocol_scenarios.py")


def install_skill(root: Path, ref: str = "HEAD") -> Path:
    """The skill as an agent gets it: the committed tree, extracted (HIDDEN left out)."""
    target = root / "skills" / "evaluation"
    if target.exists():
        raise SystemExit(f"layout: {target} exists; use a fresh ROOT")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", ref, "--", "."]
        + [f":(exclude){path}" for path in HIDDEN],
        capture_output=True,
        check=True,
    ).stdout
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4
            tar.extractall(target, filter="data")
        else:
            tar.extractall(target)  # noqa: S202 (our own repository's archive)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a fresh scratch directory")
    parser.add_argument("--scenarios", nargs="+", metavar="ID", help="only these (e.g. s1 s10)")
    parser.add_argument("--ref", default="HEAD", help="the commit to install (default HEAD)")
    parser.add_argument(
        "--no-skill", action="store_true", help="scenario folders only (the skill is in place)"
    )
    args = parser.parse_args(argv)
    try:
        manifests = load(args.scenarios)
    except ValueError as exc:
        print(f"layout: {exc}", file=sys.stderr)
        return 2
    root = args.root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    if not args.no_skill:
        install_skill(root, args.ref)
    (root / "prompts").mkdir(exist_ok=True)
    for manifest in manifests:
        lay_out(manifest, root / manifest["id"])
        (root / "prompts" / f"{manifest['id']}.txt").write_text(prompt(manifest, root))
        print(f"{manifest['id']}  {manifest['path']:<11} {root / manifest['id']}")
    if any(m["path"] == "running" for m in manifests):
        # status calls a run whose files are 20 minutes old stopped (its --stale-after).
        print(
            "note: the running-path runs were written now and do not grow; start their "
            "helpers at once (after about 15 minutes they read as stopped)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
