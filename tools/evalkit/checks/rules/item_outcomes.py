"""Few items failed for a reason that is not the model's answer.

## What it does
Reads every item the harness left (simple-evals' per-item database, and the other
harnesses' adapters in `benchmarks/registry.py`) and divides the items that failed for
a reason other than their answer by all items: the answer only in `reasoning_content`
(empty `content`), a reply cut at the output limit (`finish_reason` `length`, or an
unfinished `<think>` passed on as the answer), a judge or endpoint error, an item never
written. An unparsed answer is the model's own and is not counted here (it is shown).
Only on a finished run, and only for tasks whose harness leaves items.

It also gives two rates, each over its own denominator and never added together:
response faults (reasoning only, cut, unparsed) over the unique responses that came
back, and runtime faults (judge or endpoint error, never written) over the trials the
run was to make (items x repeats, from its config). Each counts an (item, repeat) once
however many attempts of it a resumed run kept. A denominator the files do not give (an
lm-eval run's item list, a simple-evals run without `limit_samples`) or that is 0 makes
that rate `unverified`, never 0 %.

simple-evals keys each row by its position in the list it runs (the dataset cut to
`limit_samples`, repeated `n_samples` times) and stores rows as items finish, in no list
order, so a stopped run leaves gaps anywhere: every position of that list without a row
is `missing`, however many. The list is read from the config the harness ran on
(`results.yml` echoes it; a stopped run has only `run_config.yml`): `limit_samples`
items per repeat when set, else up to the highest key written; at most the dataset's
rows (known for GPQA) times `n_samples`. A key past that is no position the harness
writes: the store is unreadable input (exit 2), not a count of missing items.

## Why is this bad
Severity: fail. Any item never written (`missing`) makes the run `incomplete`, whatever
`results.yml` says: the bound on missing samples is 0, and a harness that wrote its
headline over a short item list has still not measured the benchmark. The other causes
make the run `invalid` above 5 % of items (a resume does not fix them) and are a warning
above 1 %. The harness scores each such item 0, so the score measures the setup, not the
model: at 5 % a task with 70 % accuracy loses up to 3.5 points, more than three times
the default 1-point gate margin; above 1 % the loss can already exceed that margin.
The same bounds hold for each rate on its own denominator: response faults other than
unparsed answers over the responses, runtime faults other than missing items over the
expected trials (the bounds are this skill's, not the upstream's 2 %: see "Bounded
Evaluation-Failure Policy"). Runtime faults over an unknown total are a warning.

## Example
`62 of 198 items (31.3%) failed for a reason that is not the answer: reasoning_only 53,
truncated 9` (the bundled `tests/data/suite/candidate-reasoning`); `36 of 60 items
(60.0%) failed for a reason that is not the answer: missing 36 (...); 36 never written
(0 may be): resume the run`; `... Rates: response faults 65/198 successful responses
(32.83%); runtime faults 0 of unknown expected trials: unverified`.

## Fix
Per cause: `reasoning_only`, set the server's reasoning parser (`--reasoning-parser`)
or the adapter's `process_reasoning_traces`; `truncated`, raise the task's
`max_new_tokens` (or the server's `--max-model-len`); `endpoint_error`, read the client
log's status codes and context-length errors; `missing`, resume the run. Then rerun.
"""

from __future__ import annotations

from collections import Counter

from evalkit.benchmarks.results_yml.denominators import NOT_THE_ANSWER
from evalkit.checks.evidence import Evidence
from evalkit.checks.model import INCOMPLETE, INVALID, Check, failed, passed, warned
from evalkit.checks.rule import Rule
from evalkit.runs.outcomes import Outcome

ID = "item-outcomes"
INVALID_ABOVE = 0.05
WARN_ABOVE = 0.01
FIX = {
    "reasoning_only": "set the server's reasoning parser (--reasoning-parser) or the "
    "adapter's process_reasoning_traces so the answer reaches content",
    "truncated": "raise the task's max_new_tokens (or --max-model-len) so replies finish",
    "judge_error": "check the judge endpoint; its failures were scored 'no'",
    "endpoint_error": "read the client log's status codes and context-length errors",
    "missing": "resume the run",
}


def check_item_outcomes(counts: Counter, items: int, source: str | None) -> Check:
    bad = {k: v for k, v in counts.items() if k in {o.value for o in NOT_THE_ANSWER}}
    total = sum(bad.values())
    missing = bad.get(Outcome.MISSING.value, 0)
    other = total - missing  # the causes a resume does not fix
    share = other / items if items else 0.0
    shown = ", ".join(f"{k} {v}" for k, v in sorted(bad.items(), key=lambda kv: -kv[1]))
    unparsed = counts.get("unparsed", 0)
    tail = f"; {unparsed} unparsed (the model's own answer)" if unparsed else ""
    where = f" ({source})" if source else ""
    if not total:
        return passed(ID, f"every one of {items} items scored as an answer{tail}{where}")
    value = (
        f"{total} of {items} items ({total / items:.1%}) failed for a reason that is not "
        f"the answer: {shown}{tail}{where}"
    )
    others = {k: v for k, v in bad.items() if k != Outcome.MISSING.value}
    if share > INVALID_ABOVE:
        cause = max(others, key=others.__getitem__)
        why = f" > {INVALID_ABOVE:.0%};"
        if missing:  # those alone would only make it incomplete
            why = f"; {share:.1%} without the missing > {INVALID_ABOVE:.0%};"
        return failed(ID, INVALID, f"{value}{why} {FIX.get(cause, '')}")
    if missing:
        also = f"; then {FIX.get(max(others, key=others.__getitem__), '')}" if others else ""
        return failed(
            ID,
            INCOMPLETE,
            f"{value}; {missing} never written (0 may be): {FIX['missing']}{also}",
        )
    cause = max(others, key=others.__getitem__)
    if share > WARN_ABOVE:
        return warned(ID, f"{value} > {WARN_ABOVE:.0%}; {FIX.get(cause, '')}")
    return passed(ID, value)


def rates_text(rates: dict) -> str:
    """The two rates as the message shows them: each over its own denominator."""
    parts = []
    for name, what in (("response", "successful responses"), ("runtime", "expected trials")):
        r = rates[name]
        if r["rate"] is None:
            parts.append(f"{name} faults {r['faults']} of unknown {what}: unverified")
        else:
            parts.append(f"{name} faults {r['faults']}/{r['of']} {what} ({r['rate']:.2%})")
    return "; ".join(parts)


def check_rates(base: Check, rates: dict) -> Check:
    """BASE (the item count) judged again on the two rates, each against the same bounds,
    never added: the worse of them decides, and an unknown denominator is said."""
    text = rates_text(rates)
    response, runtime = rates["response"], rates["runtime"]
    message = f"{base.message}. Rates: {text}"
    # Items never written are bounded at 0 (incomplete: resume); the rest of the runtime
    # faults are held to the same bounds as the response faults.
    unfixed = runtime["faults"] - runtime["missing"]
    # An unparsed answer is the model's own (a fault of its output, counted in the rate as
    # upstream counts it) but not held to the bound: the harness scored what it wrote.
    answered = response["faults"] - response["unparsed"]
    shares = [
        answered / response["of"] if response["of"] else 0.0,
        unfixed / runtime["of"] if runtime["of"] else 0.0,
    ]
    worst = max(shares)
    if base.status == "fail" and base.kind == INVALID:
        return failed(ID, INVALID, message)
    if worst > INVALID_ABOVE:
        return failed(ID, INVALID, f"{message} > {INVALID_ABOVE:.0%}")
    if base.status == "fail":
        return failed(ID, base.kind or INCOMPLETE, message)
    if base.status == "warn":
        return warned(ID, message)
    if worst > WARN_ABOVE:
        return warned(ID, f"{message} > {WARN_ABOVE:.0%}")
    if runtime["rate"] is None and runtime["faults"]:
        return warned(ID, message)  # faults over an unknown total: no share to bound
    return passed(ID, message)


def judge(ev: Evidence) -> Check | None:
    if ev.growing or ev.outcomes is None or not ev.outcomes.items:
        return None
    base = check_item_outcomes(ev.outcomes.counts(), len(ev.outcomes.items), ev.outcomes.source)
    return check_rates(base, ev.outcomes.rates())


RULE = Rule(ID, "items failed only by their answer", judge, __doc__ or "", growing=False)
