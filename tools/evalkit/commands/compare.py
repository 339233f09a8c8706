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
otherwise; not_comparable when the variant or sampling differ or < 90 % of items pair.
Tasks with only results.yml scores are compared unpaired (headline score and stderr).

Trust checks come first: a side whose `evalkit validate` verdict is not valid, different
sampling (read from the rollouts' responses_create_params, else the config), reused
responses (same response ids, or byte-identical non-trivial responses), the same
invocation id or checkpoint path, or different NeMo Gym versions make a pair
not_comparable. Provenance of each side is shown.

Two invocation directories compare the whole suite: tasks pair by benchmark, Gym tasks
by item, results.yml tasks unpaired; --gate FILE.yaml gives margins per benchmark and
the suite gate (pass | fail | inconclusive | not_comparable; exit 0 only for pass);
--reference FILE.yaml checks the baseline against published scores.
Read references/compare.md before quoting a result."""
EXAMPLES = """\
  evalkit compare runs/bf16/nemo_gym.0 runs/nvfp4/nemo_gym.0
  evalkit compare runs/bf16/nemo_gym.0 runs/nvfp4/nemo_gym.0 --margin 0.5 --format json
  evalkit compare <baseline_invocation_dir> <candidate_invocation_dir> --seed 1
  evalkit compare runs/bf16 runs/nvfp4 --gate gate.yaml --reference published.yaml
"""
FORMATS = ("text", "json")


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
        "--reference",
        metavar="FILE.yaml",
        help="published scores per benchmark with their source: the baseline's distance "
        "from each is reported, and one far outside blocks pass",
    )


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
    }


def passed(document: dict[str, Any]) -> bool:
    return document["gate"] == "pass"


def run(args: argparse.Namespace) -> int:
    from evalkit.comparison.suite import compare_paths
    from evalkit.report import write_json

    document = compare_paths(args.base, args.cand, **load_options(args))
    if args.format == "json":
        write_json(document)
    else:
        print(render_text(document), end="")
    return 0 if passed(document) else 1


# ---- text -----------------------------------------------------------------------------


def _num(value: Any, digits: int = 2, sign: bool = False) -> str:
    from evalkit.report import format_number

    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:+.{digits}f}" if sign else format_number(value, digits)


def _interval(pair: Any) -> str:
    lo, hi = pair
    if any(v is None or not math.isfinite(v) for v in (lo, hi)):
        return "n/a"
    return f"[{lo:+.2f}, {hi:+.2f}]"


def _p(value: Any) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


TRUST_MARKS = {"pass": "[ok]  ", "note": "[note]", "fail": "[FAIL]"}


def trust_lines(checks: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    marks = TRUST_MARKS
    return [f"{indent}{marks.get(c['status'], '?')} {c['id']}: {c['message']}" for c in checks]


def provenance_lines(provenance: dict[str, Any], indent: str = "  ") -> list[str]:
    from evalkit.report import table

    fields = ("invocation_id", "served_model", "checkpoint", "image", "gym_version")
    rows = [
        [name, str(provenance["base"].get(name) or "-"), str(provenance["cand"].get(name) or "-")]
        for name in fields
    ]
    return [indent + line for line in table(["", "base", "cand"], rows).rstrip().splitlines()]


def render_suite_text(doc: dict[str, Any]) -> str:
    from evalkit.report import table

    paths = doc["paths"]
    out = [f"suite compare  base {paths['base']}", f"               cand {paths['cand']}"]
    rows = []
    for row in doc["tasks"]:
        rows.append(
            [
                row["task"],
                row["benchmark"],
                "-" if row.get("n") is None else str(row["n"]),
                _num(row.get("base")),
                _num(row.get("cand")),
                _num(row.get("delta"), sign=True),
                _interval(row.get("ci95") or [None, None]),
                "paired" if row.get("paired") else "UNPAIRED",
                _num(row.get("margin")),
                row["verdict"],
            ]
        )
    headers = ["task", "benchmark", "n", "base", "cand", "delta", "95% CI", "pairing", "margin"]
    out += ["", table([*headers, "verdict"], rows).rstrip("\n"), ""]
    for row in doc["tasks"]:
        out.append(f"{row['benchmark']} ({row['task']}): {row['verdict']}")
        if row.get("paired_why"):
            out.append(f"  pairing: {row['paired_why']}")
        validation = row.get("validation")
        if validation:
            out.append(f"  validate: base {validation['base']}, cand {validation['cand']}")
        for reason in row.get("reasons", []):
            out.append(f"  - {reason}")
        ref = row.get("reference")
        if ref:
            where = "n/a" if ref["distance"] is None else f"{ref['distance']:+.2f}"
            out.append(
                f"  reference {ref['score']:g} ({ref['source'] or 'no source'}): baseline "
                f"{where} points, tolerance {ref['tolerance']:g} -> {ref['status']}"
            )
        out += trust_lines([c for c in row.get("trust", []) if c["status"] != "pass"])
    out.append("")
    out.append(f"gate: {doc['gate']}  (default margin {doc['default_margin']})")
    for reason in doc["reasons"]:
        out.append(f"  - {reason}")
    return "\n".join(out) + "\n"


def single_detail(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The one task's item-level document, when the suite is one Gym task on each side
    and no gate or reference file asks for the suite view."""
    tasks = doc["tasks"]
    if len(tasks) != 1 or doc.get("gate_file") or "reference" in tasks[0]:
        return None
    detail = tasks[0].get("detail")
    return detail if detail is not None and detail.get("benchmark") == "mrcr" else None


def render_text(doc: dict[str, Any]) -> str:
    from evalkit.report import bar, table

    if doc.get("kind") == "suite":
        detail = single_detail(doc)
        return render_suite_text(doc) if detail is None else render_text(detail)
    out: list[str] = []
    if doc.get("benchmark") == "mrcr":
        agent = doc["agent"]
        out.append(
            f"MRCR compare  (agent: base {_names(agent['base'])}, cand {_names(agent['cand'])})"
        )
        out.append(f"  base  {doc['paths']['base']}")
        out.append(f"  cand  {doc['paths']['cand']}")
        out.append(
            f"items paired by content: {doc['n_paired']}  (unpaired: base "
            f"{doc['n_unpaired_base']}, cand {doc['n_unpaired_cand']}); scores in points 0-100"
        )
        headers = [
            "",
            "n",
            "base",
            "cand",
            "delta",
            "95% CI (t)",
            "bootstrap 95%",
            "p(perm)",
            "MDE",
        ]
        rows = []
        ordered = [("overall", doc["overall"])] + [
            (f"{h} needles", s) for h, s in doc["strata"].items()
        ]
        for label, s in ordered:
            rows.append(
                [
                    label,
                    str(s["n"]),
                    _num(s["base"]),
                    _num(s["cand"]),
                    _num(s["delta"], sign=True),
                    _interval(s["ci95"]),
                    _interval(s["bootstrap_ci95"]),
                    _p(s["p_permutation"]),
                    _num(s["mde"]),
                ]
            )
        out.append("")
        out.append(table(headers, rows).rstrip("\n"))
        out.append("")
        for label, s in ordered:
            for side in ("base", "cand"):
                value = s[side]
                fraction = None if value is None or not math.isfinite(value) else value / 100
                name = label if side == "base" else ""
                out.append(f"  {name:<11} {side}  {bar(fraction, 30)}  {_num(value)}")
        weights = doc["weights"]
        shown = ", ".join(
            f"{h}: {w:.3f}" for h, w in weights.items() if h != "scheme" and _finite(w)
        )
        out.append("")
        out.append(
            f"weights ({weights.get('scheme')}): {shown}; seed {doc['seed']}; "
            f"{doc.get('bootstrap_replicates')} bootstrap / permutation replicates"
        )
    if doc.get("tasks"):
        out.append("")
        out.append("other tasks (UNPAIRED: items are not available; normal-approx interval)")
        rows = [
            [
                row["task"],
                row["metric"],
                _num(row.get("base")),
                _num(row.get("cand")),
                _num(row.get("delta"), sign=True),
                _num(row.get("se")),
                _interval(row.get("ci95", [None, None])),
                row["verdict"],
            ]
            for row in doc["tasks"]
        ]
        out.append(
            table(
                ["task", "metric", "base", "cand", "delta", "SE", "95% CI", "verdict"], rows
            ).rstrip("\n")
        )
    if doc.get("trust"):
        out.append("")
        out.append("trust checks:")
        out += trust_lines(doc["trust"])
    if doc.get("provenance"):
        out.append("provenance:")
        out += provenance_lines(doc["provenance"])
    out.append("")
    out.append(f"verdict: {doc['verdict']}  (margin {doc['margin']:g} points)")
    for reason in doc["reasons"]:
        out.append(f"  - {reason}")
    for note in doc.get("notes", []):
        out.append(f"  note: {note}")
    return "\n".join(out) + "\n"


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _names(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(value) if value else "?"
    return value or "?"
