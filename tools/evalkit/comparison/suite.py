"""The release verdict: every task of a baseline suite against the candidate's, one gate,
one document whatever the number of tasks (`gate` and `tasks` always there; a Gym task's
item-level comparison nested as its row's `detail`).

Data flow: two paths -> loaded runs (read once) -> each validated (sharing the run's one
rollout pass) -> tasks paired by benchmark -> per task a paired item comparison or an
unpaired headline comparison -> margins from the gate file -> baseline against published
references -> one gate: pass | fail | inconclusive | unverified | not_comparable. A task
held several times on a side is pooled across its runs (comparison/pooled.py).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalkit.comparison.gate import DEFAULT_MARGIN, Gate, Margin, Reference
from evalkit.comparison.headlines import compare_headlines
from evalkit.comparison.items import compare_gym
from evalkit.comparison.outcome_items import compare_outcomes
from evalkit.comparison.pairing import check_keys, keyed, label, pair_sides
from evalkit.comparison.pooled import pair_pools, pooled_row, split_runs
from evalkit.comparison.sides import SuiteTask, load_side, read_gym_side, to_points
from evalkit.comparison.task_trust import all_checks, side_of_run
from evalkit.comparison.trust import ACCEPTED, FAIL, NOTE, UNVERIFIED, missing_where, unverified
from evalkit.comparison.verbosity import verbosity
from evalkit.errors import InputError
from evalkit.runs.layout import task_name
from evalkit.runs.run import load_runs

# ---- per-task rows ----------------------------------------------------------------------


def _apply_fingerprint(
    row: dict[str, Any], base: SuiteTask, cand: SuiteTask, accepted: frozenset[str]
) -> None:
    """The fingerprint diff of the pair (comparison.fingerprint_checks), on every row."""
    from evalkit.comparison.fingerprint_checks import fingerprint_checks, record_checks

    checks, row["fingerprint"] = fingerprint_checks(
        base.view.fingerprint(), cand.view.fingerprint(), accepted
    )
    checks += record_checks(base.view.fingerprint(), cand.view.fingerprint())
    row["trust"] = list(row.get("trust") or []) + [c.as_dict() for c in checks]
    if row.get("detail") is not None:  # a single task's text view prints the detail
        row["detail"].update(trust=row["trust"], fingerprint=row["fingerprint"])
    failed = [c.message for c in checks if c.status == FAIL]
    row["notes"] = list(row.get("notes") or []) + [c.message for c in checks if c.status != FAIL]
    if failed:
        kept = list(row.get("reasons", [])) if row.get("verdict") == "not_comparable" else []
        row["verdict"] = "not_comparable"
        row["reasons"] = kept + failed
        detail = row.get("detail")
        if detail is not None:  # the nested item-level document says the same
            detail.update(verdict="not_comparable", comparable=False, reasons=row["reasons"])


def _apply_trust(
    row: dict[str, Any], base: SuiteTask, cand: SuiteTask, accepted: frozenset[str]
) -> None:
    """The trust checks every task gets (comparison.task_trust) on a row without rollouts:
    a failing one makes the row not_comparable, its message first among the reasons."""
    checks = all_checks(
        side_of_run(base.view, base.validation),
        side_of_run(cand.view, cand.validation),
        accepted,
    )
    row["trust"] = list(row.get("trust") or []) + [c.as_dict() for c in checks]
    failed = [c.message for c in checks if c.status == FAIL]
    row.setdefault("notes", [])
    row["notes"] = list(row["notes"]) + [c.message for c in checks if c.status in (NOTE, "warn")]
    if failed:  # the decision's own reason no longer applies; earlier refusals still do
        kept = list(row.get("reasons", [])) if row.get("verdict") == "not_comparable" else []
        row["verdict"] = "not_comparable"
        row["reasons"] = failed + kept


def _gym_row(base: SuiteTask, cand: SuiteTask, margin: Margin, options: dict) -> dict[str, Any]:

    result = compare_gym(
        read_gym_side(base.view, base.validation),
        read_gym_side(cand.view, cand.validation),
        margin=margin.resolve,
        **options,
    )
    doc = result.document
    overall = doc["overall"]
    return {
        "paired": True,
        "paired_why": f"items paired by content ({doc['n_paired']} paired, "
        f"{doc['n_unpaired_base']} only in base, {doc['n_unpaired_cand']} only in candidate)",
        "n": doc["n_paired"],
        "pairing": doc["pairing"],
        "scale": "points (0-100)",
        "base": overall["base"],
        "cand": overall["cand"],
        "delta": overall["delta"],
        "ci95": overall["ci95"],
        "se": overall["se"],
        "mde": overall["mde"],
        "margin": doc["margin"],
        "verdict": result.verdict,
        "reasons": list(doc["reasons"]),
        "notes": list(doc["notes"]),
        "strata": doc["strata"] if len(base.view.strata) > 1 else {},
        "trust": doc["trust"],
        "provenance": doc["provenance"],
        "sampling": doc["sampling"],
        "detail": doc,
    }


def _results_row(base: SuiteTask, cand: SuiteTask, margin: Margin) -> dict[str, Any]:

    if base.headline is None or cand.headline is None:
        which = "baseline" if base.headline is None else "candidate"
        return {"paired": False, "verdict": "not_comparable", "reasons": [f"no score in {which}"]}
    if base.headline.metric != cand.headline.metric:
        return {
            "paired": False,
            "verdict": "not_comparable",
            "reasons": [
                f"the score is another metric on each side: base {base.headline.metric}, "
                f"candidate {cand.headline.metric}"
            ],
        }
    scale = base.headline.scale or cand.headline.scale
    points = margin.resolve(to_points(base.headline.value, scale))
    [row] = compare_headlines(
        [replace(base.headline, task="")], [replace(cand.headline, task="")], margin=points
    )
    if base.headline.scale is None or cand.headline.scale is None:
        row.setdefault("trust", []).append(
            unverified(
                "scale",
                f"the scale of {base.headline.metric} is not declared "
                f"{missing_where(base.headline.scale, cand.headline.scale)}: a margin in "
                "points cannot be applied to its values",
                "a documented headline key (references/quantization-benchmarks.md lists "
                "each with its scale), or a per-item file the adapter reads",
            ).as_dict()
        )
    row = {k: v for k, v in row.items() if k not in ("task",)}
    row.update(
        n=None,
        margin=points,
        paired_why="results.yml only: no item-level data, so the two runs are compared "
        "unpaired on their headline score and stderr",
        provenance={"base": base.view.provenance, "cand": cand.view.provenance},
    )
    return row


def _score_source(task: SuiteTask) -> dict[str, Any]:
    """Which file and key a side's score comes from, so a quoted number can be traced."""
    if task.kind == "gym":
        return {
            "file": str(task.view.paths["rollouts"]),
            "key": "reward (mean per item, repeats averaged first, x 100)",
        }
    metric = task.headline.metric if task.headline is not None else None
    if task.kind == "items" and task.outcomes is not None and task.outcomes.source:
        return {
            "file": str(task.view.task_dir / task.outcomes.source),
            "key": f"score per item, mean of scored and failed items ({metric} in results.yml)",
        }
    return {"file": str(task.view.paths["results"]), "key": metric}


def _items_row(base: SuiteTask, cand: SuiteTask, margin: Margin, options: dict) -> dict[str, Any]:
    row = compare_outcomes(
        base.outcomes,
        cand.outcomes,
        margin=margin.resolve,
        seed=options["seed"],
        bootstrap=options["bootstrap"],
        scales=(base.view.item_scale, cand.view.item_scale),
    )
    row["provenance"] = {
        "base": base.view.provenance,
        "cand": cand.view.provenance,
    }
    heads = [h for h in (base.headline, cand.headline) if h is not None and h.scale]
    if heads:  # the documented scale, as for results.yml rows; the figures are points
        row["scale"] = heads[0].scale
    return row


def _reference_source(reference: dict[str, Reference]) -> str | None:
    return next((r.file for r in reference.values() if r.file), None)


def _reference_check(row: dict[str, Any], ref: Reference) -> dict[str, Any]:
    """Reference scores are in points, as compare prints them (0-1 tasks x 100)."""
    base = row.get("base")
    out: dict[str, Any] = {"score": ref.score, "source": ref.source, "tolerance": ref.tolerance}
    if base is None or not math.isfinite(base):
        out.update(distance=None, status="unknown")
        return out
    distance = base - ref.score
    out.update(distance=distance, status="ok" if abs(distance) <= ref.tolerance else "far")
    return out


# ---- the suite ---------------------------------------------------------------------------


def _apply_verbosity(row: dict[str, Any], base: SuiteTask, cand: SuiteTask) -> None:
    """The candidate's mean completion tokens against the baseline's: a warning beyond 5 %
    (comparison/verbosity.py), never a change of the verdict."""
    found = verbosity(base.view, cand.view)
    row["verbosity"] = found
    if found["status"] in ("longer", "shorter"):
        row["notes"] = list(row.get("notes") or []) + [f"verbosity: {found['message']}"]


def _settle(row: dict[str, Any]) -> None:
    """Fail closed: a row whose checks could not all run is `unverified`, never
    `no_regression` (nor `inconclusive`, which would ask for more items, not evidence);
    its reasons name each missing piece and how to record it."""
    if row.get("verdict") not in ("no_regression", "inconclusive"):
        return
    gaps = [c for c in row.get("trust") or [] if c.get("status") == UNVERIFIED]
    if not gaps:
        return
    row["verdict_if_verified"] = row["verdict"]
    row["notes"] = list(row.get("notes") or []) + [
        f"with every check verified the verdict would be {row['verdict']}: "
        + "; ".join(row.get("reasons") or [])
    ]
    row["verdict"] = "unverified"
    row["reasons"] = [
        f"unverified {c['id']}: {c['message']}"
        + (f" (record next time: {c['record']})" if c.get("record") else "")
        + f"; or accept the gap knowingly with --accept {c.get('field') or c['id']}"
        for c in gaps
    ]
    detail = row.get("detail")
    if detail is not None:
        detail.update(verdict="unverified", reasons=row["reasons"])


def _finish(
    row: dict[str, Any],
    base: SuiteTask,
    cand: SuiteTask,
    margin: Margin,
    accepted: frozenset[str],
    reference: dict[str, Reference] | None,
) -> dict[str, Any]:
    """What every row gets once its score and trust checks are in: the fingerprint, the
    fail-closed settling, verbosity, both validations, the sources and the reference."""
    _apply_fingerprint(row, base, cand, accepted)
    _settle(row)
    _apply_verbosity(row, base, cand)
    row["validation"] = {"base": base.validation[0], "cand": cand.validation[0]}
    row["source"] = {"base": _score_source(base), "cand": _score_source(cand)}
    row["margin_rule"] = margin.describe()
    found = keyed(reference, base) if reference else None
    if found is not None:
        row["reference"] = _reference_check(row, found)
    return row


def compare_suite(
    base_path: str | Path,
    cand_path: str | Path,
    *,
    gate: Gate | None = None,
    reference: dict[str, Reference] | None = None,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
    default_margin: float = DEFAULT_MARGIN,
    accept: frozenset[str] | set[str] = frozenset(),
) -> dict[str, Any]:
    """The suite document for two paths (invocation, task or artifacts dir), each side
    loaded once here and handed down."""
    base_runs = load_runs(base_path, several_runs=True)
    cand_runs = load_runs(cand_path, several_runs=True)
    gate = gate or Gate(Margin(default_margin))
    accepted = frozenset(accept)
    options = {"seed": seed, "bootstrap": bootstrap, "weighting": weighting, "accepted": accepted}
    base_tasks, base_pools = split_runs(load_side(base_runs), label)
    cand_tasks, cand_pools = split_runs(load_side(cand_runs), label)
    pools = pair_pools(base_tasks, base_pools, cand_tasks, cand_pools, label)
    everything = (
        base_tasks + cand_tasks + [t for runs in pools.values() for side in runs for t in side]
    )
    check_keys(list(gate.benchmarks), "gate file", gate.source, everything)
    if reference:
        check_keys(list(reference), "reference file", _reference_source(reference), everything)
    base_side, cand_side = pair_sides(base_tasks, cand_tasks)
    rows: list[dict[str, Any]] = []
    for key, (base_runs_of, cand_runs_of) in sorted(pools.items()):
        b, c = base_runs_of[0], cand_runs_of[0]
        margin = keyed(gate.benchmarks, b) or keyed(gate.benchmarks, c) or gate.default
        row = {"task": task_name(b.view.name), "benchmark": key, "ci95": [None, None]}
        row.update(pooled_row(key, base_runs_of, cand_runs_of, margin))
        _apply_trust(row, b, c, accepted)
        rows.append(_finish(row, b, c, margin, accepted, reference))
    for key in sorted(base_side.keys() | cand_side.keys()):
        b, c = base_side.get(key), cand_side.get(key)
        either = b or c
        row: dict[str, Any] = {
            "task": either.view.name,
            "benchmark": key,
            "paired": False,
            "n": None,
            "base": None,
            "cand": None,
            "delta": None,
            "ci95": [None, None],
        }
        if b is None or c is None:
            row.update(
                verdict="not_comparable",
                reasons=[f"only in the {'candidate' if b is None else 'baseline'} suite"],
            )
            rows.append(row)
            continue
        margin = keyed(gate.benchmarks, b) or keyed(gate.benchmarks, c) or gate.default
        if {b.kind, c.kind} == {"items", "results"}:  # items on one side: headlines only
            b.kind = c.kind = "results"
            row["notes"] = ["per-item files on one side only: compared unpaired"]
        if b.kind != c.kind:
            row.update(
                verdict="not_comparable",
                reasons=["item-level rollouts on one side only: not the same kind of run"],
            )
        elif b.kind == "gym":
            row.update(_gym_row(b, c, margin, options))
        else:
            row.update(
                _items_row(b, c, margin, options)
                if b.kind == "items"
                else _results_row(b, c, margin)
            )
            _apply_trust(row, b, c, accepted)
        rows.append(_finish(row, b, c, margin, accepted, reference))
    if not rows:
        raise InputError("nothing to compare: no task runs on either side", base_path)
    verdict, reasons = suite_gate(rows)
    return {
        "kind": "suite",
        "tasks": rows,
        "gate": verdict,
        "reasons": reasons,
        "gate_file": gate.source,
        "accepted": sorted(accepted),
        "default_margin": gate.default.describe(),
        "paths": {"base": str(base_path), "cand": str(cand_path)},
        "seed": seed,
        "bootstrap_replicates": bootstrap,
    }


def suite_gate(rows: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """fail if any task regressed; else not_comparable if any task (or a baseline far from
    its reference) cannot be judged; else inconclusive if any is; else pass."""
    reasons: list[str] = []
    by_verdict: dict[str, list[str]] = {}
    for row in rows:
        by_verdict.setdefault(row["verdict"], []).append(row["benchmark"])
    far = [row for row in rows if row.get("reference", {}).get("status") == "far"]
    for row in far:
        ref = row["reference"]
        reasons.append(
            f"{row['benchmark']}: baseline {row['base']:.2f} is {ref['distance']:+.2f} points "
            f"from its reference {ref['score']:g} ({ref['source'] or 'no source'}), beyond "
            f"{ref['tolerance']:g}: check the baseline setup before trusting any delta"
        )
    for verdict in ("regression", "not_comparable", "unverified", "inconclusive"):
        if verdict in by_verdict:
            reasons.append(f"{verdict}: {', '.join(by_verdict[verdict])}")
    accepted = [
        f"{row['benchmark']}: {c.get('field') or c['id']}"
        for row in rows
        for c in row.get("trust") or []
        if c.get("status") == ACCEPTED
    ]
    if accepted:
        reasons.append(f"accepted without evidence (--accept): {', '.join(accepted)}")
    verbose = [
        f"{row['benchmark']} {row['verbosity']['relative_change']:+.0%}"
        for row in rows
        if (row.get("verbosity") or {}).get("status") in ("longer", "shorter")
    ]
    if verbose:
        reasons.append(
            "verbosity beyond 5 % (a cost, not an accuracy finding): " + ", ".join(verbose)
        )
    if "regression" in by_verdict:
        return "fail", reasons
    if "not_comparable" in by_verdict or far:
        return "not_comparable", reasons
    if "unverified" in by_verdict:
        return "unverified", reasons
    if "inconclusive" in by_verdict:
        return "inconclusive", reasons
    reasons.append(f"every task ({len(rows)}) is no_regression")
    return "pass", reasons


def compare_paths(
    base_path: str | Path,
    cand_path: str | Path,
    *,
    gate: Gate | None = None,
    reference: dict[str, Reference] | None = None,
    margin: float = DEFAULT_MARGIN,
    seed: int = 0,
    bootstrap: int = 10_000,
    weighting: str = "sample",
    accept: frozenset[str] | set[str] = frozenset(),
) -> dict[str, Any]:
    """The suite document, whatever each side holds: one MRCR task or many tasks alike
    (`gate` and `tasks` always there; the item-level MRCR document is its row's `detail`,
    which the text view prints in full for a single task)."""
    return compare_suite(
        base_path,
        cand_path,
        gate=gate,
        reference=reference,
        seed=seed,
        bootstrap=bootstrap,
        weighting=weighting,
        default_margin=margin,
        accept=accept,
    )
