"""What `evalkit compare` already ran and what to do with its verdict, as lines the text
view and the release note both end with. Everything is read from the suite document
(comparison.suite), so the commands carry the run's own paths and margin."""

from __future__ import annotations

from typing import Any

from evalkit.render.endings import ending, quote

# Per failed trust check or not-comparable reason: what to change before comparing again.
_TRUST_FIX = {
    "validate-baseline": "the baseline is not valid: evalkit validate {base} names the fix "
    "per failed check; fix and rerun the baseline",
    "validate-candidate": "the candidate is not valid: evalkit validate {cand} names the fix "
    "per failed check; fix and rerun the candidate",
    "response-reuse": "the candidate reuses the baseline's responses: rerun the candidate "
    "into a fresh execution.output_dir (no cache or rollouts carried over)",
    "invocation-id": "both paths are one invocation: point CAND at the candidate's own run",
    "checkpoint": "both sides served one checkpoint: rerun the candidate with its own "
    "deployment.checkpoint_path",
    "gym-version": "rerun one side at the other's NeMo Gym pin "
    "(install_on_the_fly.commit), so both grade with the same code",
}
_SAMPLING_FIX = (
    "rerun the candidate with the baseline's sampling (the same temperature and top_p "
    "in evaluation.nemo_evaluator_config.config.params)"
)


def _paths(doc: dict[str, Any]) -> tuple[str, str]:
    return quote(doc["paths"]["base"]), quote(doc["paths"]["cand"])


def compare_command(doc: dict[str, Any], extra: str = "") -> str:
    base, cand = _paths(doc)
    if doc.get("gate_file"):
        option = f"--gate {quote(doc['gate_file'])}"
    else:
        option = f"--margin {doc['default_margin'].split()[0]}"
    for name in doc.get("accepted") or []:  # the same waivers, so the command reproduces
        option += f" --accept {quote(name)}"
    return f"evalkit compare {base} {cand} {option}{extra}"


def already_ran(doc: dict[str, Any]) -> list[str]:
    """The work compare did on the way, named by the command a person would run for it."""
    tasks = doc["tasks"]
    gym = [t for t in tasks if t.get("paired") and not t.get("outcomes")]
    items = [t for t in tasks if t.get("paired") and t.get("outcomes")]
    headline = [t for t in tasks if not t.get("paired") and t.get("base") is not None]
    out = [f"validate on both sides ({len(tasks)} task(s) each)"]
    if any(t["benchmark"] == "mrcr" for t in gym):  # regrade re-grades; this was not that
        out[0] += ", its aggregate-agreement check tying MRCR's aggregate file to the rewards"
    if gym:
        out.append(
            "score from the rollouts for "
            + ", ".join(f"{t['benchmark']} ({t['n']} items paired by content)" for t in gym)
        )
    if items:
        out.append(
            "score from the harness's per-item files for "
            + ", ".join(
                f"{t['benchmark']} ({t['n']} items paired by id and prompt, failures by cause)"
                for t in items
            )
        )
    if headline:
        out.append("score from results.yml for " + ", ".join(t["benchmark"] for t in headline))
    return out


def _named(trust: list[dict[str, Any]], *statuses: str) -> list[str]:
    """The checks (a fingerprint finding by its field) with one of STATUSES, once each."""
    return list(dict.fromkeys(c.get("field") or c["id"] for c in trust if c["status"] in statuses))


def checked_lines(doc: dict[str, Any]) -> list[str]:
    lines = []
    for t in doc["tasks"]:
        validation = t.get("validation") or {}
        parts = [f"validate base {validation.get('base', '?')}, cand {validation.get('cand', '?')}"]
        trust = t.get("trust") or []
        if trust:
            failed, gaps = _named(trust, "fail"), _named(trust, "unverified")
            waived, noted = _named(trust, "accepted"), _named(trust, "note", "warn")
            said = [f"failed: {', '.join(failed)}"] if failed else []
            said += [f"unverified (evidence absent): {', '.join(gaps)}"] if gaps else []
            said += [f"ACCEPTED without evidence: {', '.join(waived)}"] if waived else []
            said += [f"noted: {', '.join(noted)}"] if noted else []
            parts.append(
                f"trust checks {', '.join(dict.fromkeys(c['id'] for c in trust))}"
                + (f" ({'; '.join(said)})" if said else " (all passed)")
            )
        if t.get("outcomes"):
            parts.append("items paired by id and prompt; failed items counted by cause")
        else:
            parts.append("items paired by content" if t.get("paired") else "unpaired headline")
        lines.append(f"checked {t['benchmark']}: {'; '.join(parts)}")
    return lines


def _not_comparable_steps(doc: dict[str, Any]) -> list[str]:
    base, cand = _paths(doc)
    steps: list[str] = []
    for t in doc["tasks"]:
        if t["verdict"] != "not_comparable":
            continue
        failed = [c["id"] for c in t.get("trust") or [] if c["status"] == "fail"]
        for check_id in failed:
            if check_id.startswith("sampling-"):
                fix = _SAMPLING_FIX
            else:
                fix = _TRUST_FIX.get(check_id, "see references/compare.md#trust-checks")
            steps.append(
                f"{t['benchmark']}: {check_id}: {fix.format(base=base, cand=cand)} "
                "(see references/compare.md#trust-checks)"
            )
        if not failed:
            for reason in t.get("reasons", [])[:2]:
                steps.append(f"{t['benchmark']}: {reason}; rerun the candidate to match")
    return list(dict.fromkeys(steps))


def next_steps(doc: dict[str, Any]) -> list[str]:
    gate = doc["gate"]
    tasks = doc["tasks"]
    if gate == "pass":
        return [
            "the candidate holds within the margin: paste the release note from "
            + compare_command(doc, " --format markdown")
        ]
    if gate == "fail":
        lost = [t["benchmark"] for t in tasks if t["verdict"] == "regression"]
        return [
            f"regression on {', '.join(lost)}: do not release this candidate; "
            "the strata and reasons above say where it loses",
            compare_command(doc, " --format markdown") + "   (the release note, to report it)",
        ]
    if gate == "not_comparable":
        return [*_not_comparable_steps(doc), "then: " + compare_command(doc)]
    if gate == "unverified":
        return [*_unverified_steps(doc), "then: " + compare_command(doc)]
    wide = [
        f"{t['benchmark']} (MDE {t['mde']:.2f} points)"
        for t in tasks
        if t["verdict"] == "inconclusive" and isinstance(t.get("mde"), (int, float))
    ]
    why = f"; the smallest effect these items can show: {', '.join(wide)}" if wide else ""
    short = [t for t in tasks if t["verdict"] == "inconclusive" and t.get("runs_needed")]
    steps = [_more_runs(t) for t in short]
    wide_tasks = [t for t in tasks if t["verdict"] == "inconclusive" and t not in short]
    independent = [t["benchmark"] for t in wide_tasks if _runs_not_repeats(t)]
    repeatable = [t["benchmark"] for t in wide_tasks if not _runs_not_repeats(t)]
    if wide_tasks:
        steps.append("inconclusive: the interval is wider than the margin allows" + why)
    if repeatable:
        steps.append(
            f"more items narrow it ({', '.join(repeatable)}): run both sides in full (no "
            "limit_samples canary) or with more repeats, then: " + compare_command(doc)
        )
    if independent:
        steps.append(
            f"{', '.join(independent)}: submit more independent runs of the task on each side "
            "(fresh output_dir, num_repeats stays 1: its recipe forbids repeats, which "
            "replay one sampling), then: " + compare_command(doc)
        )
    if short:
        steps.append("then: " + compare_command(doc))
    return steps


def _more_runs(task: dict[str, Any]) -> str:
    """How many independent runs a pooled task still needs per side, and the command."""
    need = task["runs_needed"]
    sides = " and ".join(
        f"{n} more independent runs on the {'baseline' if side == 'base' else 'candidate'}"
        for side, n in need.items()
        if n
    )
    return (
        f"{task['benchmark']}: submit {sides} (at least {task['min_runs']} valid runs a side; "
        f"each a fresh submission into its own output_dir, num_repeats stays 1, never more "
        f"repeats): {task['run_command']}, once per run, on each side's config"
    )


# Tasks whose recipe takes variance from independent fresh runs, never from repeats
# (recipes/tasks/aa/scicode.md: num_repeats stays 1).
RUNS_NOT_REPEATS = ("scicode",)


def _runs_not_repeats(task: dict[str, Any]) -> bool:
    names = f"{task.get('benchmark', '')} {task.get('task', '')}".lower()
    return any(name in names for name in RUNS_NOT_REPEATS)


def unproven(tasks: list[dict[str, Any]], *statuses: str):
    """(task, check, its name for --accept) of each check with one of STATUSES."""
    for t in tasks:
        for c in t.get("trust") or []:
            if c["status"] in statuses:
                yield t, c, c.get("field") or c["id"]


def _unverified_steps(doc: dict[str, Any]) -> list[str]:
    """What to record so the next comparison can verify what this one could not."""
    steps = [
        f"{t['benchmark']}: {name} unverified ({c['message']})"
        + (f"; record it next time: {c['record']}" if c.get("record") else "")
        + f"; or, knowing the gap, compare again with --accept {name}"
        for t, c, name in unproven(doc["tasks"], "unverified")
    ]
    return list(dict.fromkeys(steps))


def compare_ending(doc: dict[str, Any]) -> str:
    return ending(checked_lines(doc), next_steps(doc), already_ran(doc))
