"""Preflight and the real nel 0.2.6 dry-run, side by side, on configs nobody here wrote.

    bash tests/run.sh --python tests/preflight/agree_on_examples.py DIR [--markdown] \
        [--set NAME=VALUE ...]

DIR holds YAML configs, for example the launcher's own examples at its release tag:

    mkdir nel-examples && git -C Evaluator archive nemo-evaluator-launcher-v0.2.6 \\
        packages/nemo-evaluator-launcher/examples | tar -x -C nel-examples

With `--markdown` it reads the ```yaml blocks of the .md files under DIR instead (the
launcher's `docs/` at the same tag). Either way a file counts as a config when it has a
top-level `defaults:` key.

Every `???` is filled the same way for both tools (as the differential test does); the
launcher runs in-process (nel_batch.py). `--set` puts a variable into the environment of
both, for the API keys and tokens the examples name. Each config gets one line: what
the launcher said, preflight's error and warning codes, and whether they agree (a
refusal with a preflight error, an acceptance without one). A refusal for an unset
variable counts as agreeing when NEL104 warns about it: the contract keeps those
warnings (references/rules.md). Exit 0 when every config agrees. Writes nothing here.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: helpers
sys.path.insert(0, str(HERE))  # nel_batch

from nel_batch import fill_blanks, launch_env, run_batch  # noqa: E402

from evalkit.preflight.runner import Options, check_file  # noqa: E402

ENV_REFUSAL = "Environment variable"  # the 0.2.6 message for an unset host variable
TOP_DEFAULTS = re.compile(r"^defaults:", re.MULTILINE)
YAML_BLOCK = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--markdown", action="store_true", help="read ```yaml blocks of .md")
    args = parser.parse_args(argv)
    env = launch_env(dict(item.split("=", 1) for item in args.set))
    with tempfile.TemporaryDirectory(prefix="agree-") as work:
        root = Path(work) / "blocks" if args.markdown else args.directory
        if args.markdown:
            write_blocks(args.directory, root)
        configs = sorted(p for p in root.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))
        configs = [p for p in configs if TOP_DEFAULTS.search(p.read_text(errors="replace"))]
        if not configs:
            print(f"no launcher configs under {args.directory}", file=sys.stderr)
            return 2
        out = Path(work) / "out"
        jobs = [{"config": str(p), "overrides": fill_blanks(p, out)} for p in configs]
        verdicts = run_batch(jobs, work, 0, env)
        return report(jobs, verdicts, root, env)


def write_blocks(docs: Path, out: Path) -> None:
    """Each ```yaml block of each .md under DOCS as OUT/<md path>-<n>.yaml."""
    out.mkdir(parents=True)
    for md in sorted(docs.rglob("*.md")):
        text = md.read_text(encoding="utf-8", errors="replace")
        name = "__".join(md.relative_to(docs).with_suffix("").parts)
        for n, block in enumerate(YAML_BLOCK.findall(text)):
            (out / f"{name}-{n}.yaml").write_text(block, encoding="utf-8")


def report(jobs: list[dict], verdicts: list[dict], root: Path, env: dict) -> int:
    counts = {"accepted": 0, "false_errors": 0, "refused": 0, "caught": 0, "env": 0}
    for job, verdict in zip(jobs, verdicts, strict=True):
        try:
            found = check_file(job["config"], Options(overrides=job["overrides"], env=env))
            errors = sorted({f.rule for f in found if f.severity == "error"})
            warnings = sorted({f.rule for f in found if f.severity == "warning"})
        except Exception as err:  # preflight refusing the file is an error verdict
            errors, warnings = [f"input: {err}"], []
        if verdict["ok"]:
            counts["accepted"] += 1
            counts["false_errors"] += bool(errors)
            agree = not errors
        else:
            counts["refused"] += 1
            env_only = ENV_REFUSAL in verdict["error"] and "NEL104" in warnings
            counts["caught"] += bool(errors)
            counts["env"] += bool(env_only and not errors)
            agree = bool(errors) or bool(env_only)
        said = "accepted" if verdict["ok"] else f"refused ({verdict['error'][:90]})"
        name = Path(job["config"]).relative_to(root)
        print(f"{'agree' if agree else 'DIFFER'}  {name}: {said}; errors {errors}, "
              f"warnings {warnings}")  # fmt: skip
    print(
        f"\n{len(jobs)} configs: launcher accepted {counts['accepted']} (preflight errors on "
        f"{counts['false_errors']}), refused {counts['refused']} (preflight errors on "
        f"{counts['caught']}, NEL104 warnings on {counts['env']} refused for an unset variable)"
    )
    differ = counts["false_errors"] + counts["refused"] - counts["caught"] - counts["env"]
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
