"""The closing block of `evalkit preflight`'s text: how many rules ran, and the next
command with this invocation's own configs and options (`--fix` only for the findings a
fixer will change the file for, found by a dry pass of the fix engine; `--fix
--unsafe-fixes` for those only an unsafe fix changes; then the launcher's dry-run; the one
rules.md section per rule left to fix by hand, a rule with a fixer that changes nothing
here included)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evalkit.findings import Finding
from evalkit.render.endings import PREFLIGHT_DOC, ending, quote


def rules_see(code: str) -> str:
    """references/rules.md has one `## NELxxx` section per rule (preflight/docs.py)."""
    return f"{PREFLIGHT_DOC}#{code.lower()}"


def preflight_ending(
    findings: Sequence[Finding],
    checked: Iterable[str],
    fixable: Iterable[tuple[str, str | None]],
    rerun: Sequence[str],
    fix: Sequence[str],
    would_fix: Iterable[str] = (),
    configs: Sequence[str] = (),
    overrides: Sequence[str] = (),
    unsafe: Iterable[tuple[str, str | None]] = (),
) -> str:
    """CHECKED: the rule codes this invocation ran; FIXABLE: (rule, key path) of the
    findings a safe fix changes the file for; UNSAFE: the same for the unsafe fixes;
    RERUN: this invocation's inputs, as words (configs, --checkpoint DIR, --pair ...);
    FIX: the same for --fix, which takes configs alone; WOULD_FIX: the codes a --diff
    showed fixed but did not write; CONFIGS and OVERRIDES (-o): for the dry-run."""
    codes = list(dict.fromkeys(checked))
    fixers, choosers = set(fixable), set(unsafe) - set(fixable)
    args = " ".join(quote(word) for word in rerun)
    fix_args = " ".join(quote(word) for word in fix)
    errors = [f for f in findings if f.severity == "error"]
    auto = sorted({f.rule for f in findings if (f.rule, f.path) in fixers} | set(would_fix))
    chosen = sorted({f.rule for f in findings if (f.rule, f.path) in choosers} - set(auto))
    automatic = fixers | choosers
    by_hand = sorted({f.rule for f in errors if (f.rule, f.path) not in automatic})
    steps: list[str] = []
    if auto:
        steps.append(
            f"evalkit preflight {fix_args} --fix   (applies the safe fixes for {', '.join(auto)}; "
            + ("the diff above shows them)" if would_fix else "--diff first to see them)")
        )
    if chosen:
        steps.append(
            f"evalkit preflight {fix_args} --fix --unsafe-fixes --diff   (fixes for "
            f"{', '.join(chosen)} that choose behaviour; each prints its choice: read them)"
        )
    steps += [f"by hand: {code}: the fix line above (see {rules_see(code)})" for code in by_hand]
    if errors or auto or chosen:
        steps.append(f"then: evalkit preflight {args}")
    elif "--with-launcher" in rerun:
        steps.append(
            "ready: a canary (-o evaluation.nemo_evaluator_config.config.params.limit_samples"
            "=N on the command line), then the full run, with the command that launches "
            "this config (scripts/nel-gym.sh run --config CONFIG for a gym task)"
        )
    else:  # the wrapper runs the pinned nel 0.2.6 whatever `nel` is on PATH
        dash_o = "".join(f" -o {quote(o)}" for o in overrides)
        steps += [
            f"scripts/nel-gym.sh run --config {quote(config)}{dash_o} --dry-run   (the pinned nel "
            "0.2.6 dry-run; or: evalkit preflight CONFIG --with-launcher)"
            for config in configs
        ]
    listed = f"checked: {len(codes)} rules (every one in {PREFLIGHT_DOC} these inputs allow)"
    return ending([listed], steps)
