"""`evalkit compare BASE CAND`: paired baseline-vs-candidate statistics and a verdict."""

from __future__ import annotations

import argparse
import math
from typing import Any

SUMMARY = "compare a candidate run with a baseline (MRCR items paired by content)"
DESCRIPTION = """\
Compare a candidate run with a baseline run of the same benchmark.

MRCR: items are paired by content (random_string_to_prepend, n_needles, expected_answer),
never by task index; repeats are averaged per item first. For the total and each needle
stratum (2, 4, 8) it reports base and candidate means in points (0-100), the paired delta
with a 95 % paired-t interval, a paired bootstrap interval, a sign-flip permutation
p-value and the minimum detectable effect at 80 % power.

Verdict with --margin M (points): regression when the interval lies below 0 and the
delta is below -M; no_regression when the interval's lower bound is >= -M; inconclusive
otherwise; not_comparable when the variant or sampling differ or > 5 % of items do not
pair (below that, a baseline item the candidate lacks counts as its failure). Tasks of
other harnesses pair by (item id, prompt digest) on the item scale their adapter
declares; tasks with only results.yml scores are compared unpaired (headline and stderr).

Trust checks come first, the same for every task: a side whose `evalkit validate`
verdict is not valid, the same run directory, different sampling (the rollouts'
responses_create_params, else the config), reused responses (same response ids, or
byte-identical non-trivial responses, from the rollouts or the adapter's response
cache, the harness's item store), the same invocation id or checkpoint path, or
different NeMo Gym or harness versions make a pair not_comparable. Fail closed: a check
whose evidence is absent (no response record, a setting or scale not recorded) makes the
task `unverified`, never a pass, and names what to record next time; --accept CHECK
waives one such gap knowingly, and the acceptance is printed. Provenance of each side is
shown.

Two invocation directories compare the whole suite: tasks pair by benchmark, Gym tasks
by item, results.yml tasks unpaired; --gate FILE.yaml gives margins per benchmark and
the suite gate (pass | fail | inconclusive | unverified | not_comparable; exit 0 only
for pass);
--reference FILE.yaml checks the baseline against published scores.

The text ends with what compare already ran (validate on both sides, the scores, the
pairing: no need to run them again) and the next step as commands. --format markdown
prints a release-note section to paste: both scores with the file and key they come
from, both sides' validation, the trust checks, the verdict with its interval and MDE,
and what to do next. references/compare.md explains every check and verdict."""
EXAMPLES = """\
  evalkit compare runs/bf16/nemo_gym.0 runs/nvfp4/nemo_gym.0
  evalkit compare runs/bf16/nemo_gym.0 runs/nvfp4/nemo_gym.0 --margin 0.5 --format json
  evalkit compare runs/bf16 runs/nvfp4 --margin 1 --format markdown > release-note.md
  evalkit compare <baseline_invocation_dir> <candidate_invocation_dir> --seed 1
  evalkit compare runs/bf16 runs/nvfp4 --gate gate.yaml --reference published.yaml
  evalkit compare runs/bf16 runs/nvfp4 --accept response-reuse --accept images
"""
FORMATS = ("text", "json", "markdown")


def _non_negative(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError("must be a finite number >= 0")
    return value


def _replicates(text: str) -> int:
    value = int(text)
    if value < 100:
        raise argparse.ArgumentTypeError("must be at least 100")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "base", metavar="BASE", help="baseline run (invocation, task or artifacts dir)"
    )
    parser.add_argument("cand", metavar="CAND", help="candidate run (same forms)")
    parser.add_argument(
        "--margin",
        type=_non_negative,
        default=1.0,
        help="largest acceptable loss in points on the task's scale (default: 1.0)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for resampling (default: 0)")
    parser.add_argument(
        "--bootstrap",
        type=_replicates,
        default=10_000,
        metavar="B",
        help="bootstrap and permutation replicates (default: 10000)",
    )
    parser.add_argument(
        "--weights",
        choices=("sample", "equal"),
        default="sample",
        help="how strata combine into the total: sample-proportional (default) or equal",
    )
    parser.add_argument(
        "--gate",
        metavar="FILE.yaml",
        help="margin per benchmark (points or relative) and a default; gives the suite gate",
    )
    parser.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="CHECK",
        help="accept a gap knowingly: an unverified check (e.g. response-reuse, repeats) or "
        "an acceptable difference (images, harness-version) stops blocking the pass; every "
        "view and the release note print the acceptance (repeatable)",
    )
    parser.add_argument(
        "--reference",
        metavar="FILE.yaml",
        help="published scores per benchmark with their source: the baseline's distance "
        "from each is reported, and one far outside blocks pass",
    )


def accepted(names: list[str]) -> frozenset[str]:
    """The --accept names, each a check id or fingerprint field (a typo would waive
    nothing and leave the user believing it did: refused)."""
    from evalkit.comparison.task_trust import ACCEPTABLE
    from evalkit.errors import UsageError
    from evalkit.runs.fingerprint import FIELDS

    known = set(ACCEPTABLE) | set(FIELDS)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(
            f"--accept {', '.join(unknown)}: not a check or fingerprint field; one of "
            + ", ".join(sorted(known))
        )
    return frozenset(names)


def load_options(args: argparse.Namespace) -> dict[str, Any]:
    """Everything compare and report share: the gate, the references, the resampling."""
    from evalkit.comparison.gate import load_gate, load_reference

    return {
        "gate": load_gate(args.gate) if args.gate else None,
        "reference": load_reference(args.reference) if args.reference else None,
        "margin": args.margin,
        "seed": args.seed,
        "bootstrap": args.bootstrap,
        "weighting": args.weights,
        "accept": accepted(args.accept),
    }


def passed(document: dict[str, Any]) -> bool:
    return document["gate"] == "pass"


def run(args: argparse.Namespace) -> int:
    from evalkit.comparison.suite import compare_paths
    from evalkit.render.compare import render_text
    from evalkit.render.report import write_json

    document = compare_paths(args.base, args.cand, **load_options(args))
    if args.format == "json":
        write_json(document)
    elif args.format == "markdown":
        from evalkit.render.release_note import render_release_note

        print(render_release_note(document), end="")
    else:
        print(render_text(document), end="")
    return 0 if passed(document) else 1
