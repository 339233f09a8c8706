"""`evalkit preflight`: check nel 0.2.6 configs before launch."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "check nel 0.2.6 configs before launch (static; optional launcher dry-run)"
DESCRIPTION = """\
Check one or more nel 0.2.6 configs before launch and report every problem at once,
with its key path, file line, reason and fix. Static: reads the YAML, composes the
launcher's bundled defaults (e.g. slurm/default's gres and mount_home) and applies the
same -o overrides you launch with. Rule reference: references/rules.md.

--template reports `???` blanks as info (for shipped templates). --checkpoint adds the
checks that need the model's config.json / hf_quant_config.json; --context N gives the
context the model card documents (else config.json's max_position_embeddings is used),
and alone (no checkpoint files at hand) runs the checks that need only the context.
--pair compares a baseline and a candidate config. --with-launcher also runs the real
`nel run --dry-run` and checks the scripts it renders.

Suppression: `# evalkit: disable=NEL201` at the end of a YAML line silences that code on
that line; on its own line before the first key, in the whole file. --select and
--ignore take codes or prefixes (NEL2). Suppressed findings are counted in the summary.
Exit 1 on errors, or on warnings too with --fail-on warning (--strict).

--fix applies the fixes that are safe and certain (rules marked "Fix available" in
references/rules.md), edits only the lines each fix owns, writes each CONFIG in place
through the same file (mode, owner, hard links and line endings kept; a read-only file is
refused), and reports what it fixed and what remains; a second --fix changes nothing.
Every batch of fixes is proved first: the config resolved before and after may differ only
in the keys fixed. --diff prints the fixes as a unified diff for `patch -p0` and writes
nothing (exit 1 when there is a diff or an error would remain); a diff that would not
apply as printed is not printed, nor one holding a bidi control character when stdout is
a terminal (piped, it is printed exact).
"""
EXAMPLES = """\
  evalkit preflight recipes/examples/gym/example_mrcr.yaml --template
  evalkit preflight mrcr.yaml -o execution.account=my-team --checkpoint /models/nvfp4
  evalkit preflight mrcr.yaml --checkpoint /models/nano-nvfp4 --context 1048576
  evalkit preflight mrcr.yaml --context 131072
  evalkit preflight --pair mrcr_bf16.yaml mrcr_nvfp4.yaml
  evalkit preflight mrcr.yaml --with-launcher --nel scripts/nel-gym.sh
  evalkit preflight mrcr.yaml --format sarif > preflight.sarif
  evalkit preflight mrcr.yaml --ignore NEL201,NEL207 --fail-on warning
  evalkit preflight mrcr.yaml --fix --diff
  evalkit preflight mrcr.yaml --fix --format json
"""
FORMATS = ("text", "json", "sarif")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", nargs="*", metavar="CONFIG", help="nel 0.2.6 YAML config(s)")
    parser.add_argument(
        "-o",
        "--override",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override like `nel run -o` (dotted key; + adds, ++ adds or replaces)",
    )
    parser.add_argument(
        "--template", action="store_true", help="report ??? blanks as info, not errors"
    )
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="checkpoint dir with config.json (and hf_quant_config.json)",
    )
    parser.add_argument(
        "--context",
        type=int,
        metavar="N",
        help="the context length (tokens) the model card documents; default: config.json "
        "max_position_embeddings with --checkpoint. Alone, runs the rules that need only the "
        "context (NEL603)",
    )
    parser.add_argument(
        "--pair",
        nargs=2,
        metavar=("BASE", "CAND"),
        help="check both configs and report every non-checkpoint difference",
    )
    parser.add_argument(
        "--with-launcher",
        action="store_true",
        help="also run the real `nel run --dry-run` and check the rendered scripts (for a "
        "nel-next config: nel-next's own dry-run, once scripts/nel-next.sh --setup-only ran)",
    )
    parser.add_argument(
        "--nel",
        metavar="PATH",
        help="launcher for --with-launcher (default: scripts/nel-gym.sh, else nel on PATH)",
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help="dotenv file the launch will use (default: ./.env, as nel does)",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="report only these rule codes or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="suppress these rule codes or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    parser.add_argument(
        "--strict",
        dest="fail_on",
        action="store_const",
        const="warning",
        help="same as --fail-on warning",
    )
    parser.add_argument(
        "--fix", action="store_true", help="apply the safe fixes to each CONFIG, in place"
    )
    parser.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff; write nothing"
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix/--diff, also apply fixes that choose behaviour the file does not "
        "state (each prints its choice and reason), e.g. a bare task name's harness from "
        "the launcher era the config was written for",
    )


def _codes(values: list[str]) -> list[str]:
    return [c.strip().upper() for v in values for c in v.split(",") if c.strip()]


def _suppressed_line(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return ""
    detail = ", ".join(f"{code} x{n}" for code, n in counts.items())
    return f"{total} finding(s) suppressed ({detail})\n"


def run(args: argparse.Namespace) -> int:
    from evalkit.errors import UsageError
    from evalkit.findings import exit_code, findings_document
    from evalkit.preflight import suppress
    from evalkit.preflight.registry import all_rules
    from evalkit.preflight.runner import (
        Options,
        check_file,
        check_launcher,
        check_pair,
        directives_for,
    )
    from evalkit.render.report import findings_text, write_json

    configs = list(args.configs)
    if args.pair:
        configs += [c for c in args.pair if c not in configs]
    if not configs:
        raise UsageError("give at least one CONFIG (or --pair BASE CAND)")
    if args.nel and not args.with_launcher:
        raise UsageError("--nel only applies with --with-launcher")
    select, ignore = _codes(args.select), _codes(args.ignore)
    unknown = suppress.check_selectors(select + ignore, all_rules())
    if unknown:
        raise UsageError(f"no rule matches {', '.join(unknown)} (see references/rules.md)")

    if args.context is not None and args.context <= 0:
        raise UsageError("--context N needs a positive N (tokens)")
    checkpoint = None
    if args.checkpoint:
        from evalkit.checkpoint import load_checkpoint

        checkpoint = load_checkpoint(args.checkpoint, documented_context=args.context)
    from evalkit.config.interpolation import launch_environment

    options = Options(
        overrides=args.overrides,
        template=args.template,
        checkpoint=checkpoint,
        context=args.context,
        env=launch_environment(env_file=args.env_file),
        unsafe=args.unsafe_fixes,
    )

    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes goes with --fix or --diff")
    if args.fix or args.diff:
        if args.pair or args.with_launcher or args.format == "sarif":
            raise UsageError("--fix/--diff take CONFIGs alone (no --pair, --with-launcher, sarif)")
        return _fix(args, configs, options, select, ignore)

    findings = []
    for path in configs:
        findings += check_file(path, options)
    if args.pair:
        findings += check_pair(args.pair[0], args.pair[1], options)
    if args.with_launcher:
        from evalkit.preflight import launcher
        from evalkit.preflight.runner import is_nel_next, load

        for path in configs:
            if is_nel_next(load(path, options).doc.data):  # NEL011: never the 0.2.6 launcher
                if args.overrides:
                    raise UsageError(
                        f"{path}: a nel-next config takes nel-next's own -O overrides, not -o"
                    )
                result = launcher.nel_next_dry_run(path, env=options.env)
                if result is None:
                    print(
                        f"evalkit preflight: {path} is a nel-next config and no nel-next "
                        "environment is set up (scripts/nel-next.sh --setup-only): no dry-run",
                        file=sys.stderr,
                    )
                    continue
                print(f"evalkit preflight: running nel-next's dry-run on {path}", file=sys.stderr)
            else:
                which = " ".join(launcher.find_nel(args.nel))
                print(
                    f"evalkit preflight: running the launcher dry-run on {path} with {which}",
                    file=sys.stderr,
                )
                result = launcher.dry_run(path, args.overrides, args.nel, env_file=args.env_file)
            findings += check_launcher(path, options, result)

    directives = {path: directives_for(path) for path in dict.fromkeys(configs)}
    for finding in findings:  # a file beside a config (`- _endpoints`) has its own comments
        if finding.file and finding.file not in directives:
            directives[finding.file] = directives_for(finding.file)
    result = suppress.apply(findings, directives, select, ignore)
    findings = result.shown
    if args.format == "json":
        document = findings_document(findings)
        document["summary"]["suppressed"] = len(result.suppressed)
        document["suppressed"] = result.counts()
        write_json(document)
    elif args.format == "sarif":
        from evalkit.render.report import render_sarif

        write_json(render_sarif(findings, all_rules()))
    else:
        sys.stdout.write(
            findings_text(findings)
            + _suppressed_line(result.counts())
            + _ending(args, configs, options, findings, select, ignore)
        )
    return exit_code(findings, strict=args.fail_on == "warning")


def _will_fix(configs, options, select, ignore) -> tuple[set, set]:
    """(rule, key path) of the findings a safe and an unsafe fix would change each config
    for: a dry pass of the fix engine, nothing written (a fixer that refuses or changes
    nothing is not offered)."""
    import dataclasses

    from evalkit.errors import EvalkitError
    from evalkit.preflight.fixes.engine import fix_text
    from evalkit.preflight.fixes.files import read_config

    safe, unsafe = set(), set()
    dry = dataclasses.replace(options, unsafe=True)
    for path in dict.fromkeys(configs):
        try:
            outcome = fix_text(read_config(path).text, path, dry, select, ignore, False)
        except EvalkitError:
            continue
        for f in outcome.fixed:  # an unsafe fix carries its choice as a note
            (unsafe if f.note else safe).add((f.rule, f.path))
    return safe, unsafe


def _ending(args, configs, options, findings, select, ignore, would_fix=(), fixes=None) -> str:
    """The rules this invocation ran and the next command, with its own inputs. FIXES:
    (safe, unsafe) sets of what --fix would change; computed here when not given."""
    from evalkit.preflight.registry import all_rules
    from evalkit.preflight.runner import scopes_for
    from evalkit.preflight.suppress import matches
    from evalkit.render.preflight_next import preflight_ending

    scopes = set(scopes_for(options))
    scopes.update(["pair"] if args.pair else [])
    scopes.update(["launcher"] if args.with_launcher else [])
    ran = [
        code
        for code, rule in all_rules().items()
        if rule.scope in scopes
        and not (select and not matches(code, select))
        and not matches(code, ignore)
    ]
    inputs = [word for o in args.overrides or () for word in ("-o", o)]
    inputs += ["--checkpoint", args.checkpoint] if args.checkpoint else []
    inputs += ["--context", str(args.context)] if args.context is not None else []
    rerun = [*args.configs, *(["--pair", *args.pair] if args.pair else []), *inputs]
    rerun += ["--with-launcher"] if args.with_launcher else []
    fix = [*configs, *inputs]
    overrides = args.overrides or ()
    if fixes is None:
        from evalkit.preflight.fixes import all_fixers, unsafe_fixers

        with_fixer = set(all_fixers()) | set(unsafe_fixers())
        needed = any(f.severity != "info" and f.rule in with_fixer for f in findings)
        fixes = _will_fix(configs, options, select, ignore) if needed else (set(), set())
    safe, unsafe = fixes
    return preflight_ending(
        findings, ran, safe, rerun, fix, would_fix, configs, overrides, unsafe=unsafe
    )


def _fix(args, configs, options, select, ignore) -> int:
    """--fix / --diff: fix each config (written only with --fix and no --diff)."""
    import os

    from evalkit.errors import InputError
    from evalkit.findings import exit_code, findings_document
    from evalkit.preflight import suppress
    from evalkit.preflight.fixes.engine import fix_text
    from evalkit.preflight.fixes.files import check_writable, read_config, write_in_place
    from evalkit.render.diff import refusal as diff_refusal
    from evalkit.render.report import findings_text, write_json

    write = args.fix and not args.diff
    outcomes, sources, seen = [], {}, set()
    for path in dict.fromkeys(configs):
        source = read_config(path)
        inode = (os.stat(path).st_dev, os.stat(path).st_ino)
        if inode not in seen:  # one file named twice (a link, `./x` and `x`): fixed once
            seen.add(inode)
            sources[path] = source
    for path, source in sources.items():  # every file fixed (or refused) before any write
        outcomes.append(fix_text(source.text, path, options, select, ignore))
    if write:
        for outcome in outcomes:
            if outcome.changed:
                check_writable(outcome.file)  # a read-only file: exit 2, nothing written
        for outcome in outcomes:
            if outcome.changed:
                write_in_place(outcome.file, sources[outcome.file], outcome.text)
    diff = ""
    if args.diff:
        diffs = {o.file: o.diff(sources[o.file].newline) for o in outcomes}
        terminal = args.format == "text" and sys.stdout.isatty()
        for o in outcomes:
            if (why := diff_refusal(diffs[o.file], o.text, terminal)) is not None:
                raise InputError(why[0], o.file, why[1])
        diff = "".join(diffs.values())
    remaining, hidden = [], 0
    for o in outcomes:
        directives = {o.file: suppress.parse_directives(o.text)}
        shown = suppress.apply(o.remaining, directives, select, ignore)
        remaining += shown.shown
        hidden += len(shown.suppressed)
    # as ruff does: say how many fixes --unsafe-fixes would add (a dry pass, nothing written)
    waiting = set() if options.unsafe else _unsafe_available(outcomes, options, select, ignore)
    more = len(waiting)
    # what is left was offered to every safe fixer already: only unsafe ones may change it
    fixes = (set(), {(rule, path) for rule, path, _ in waiting})
    if args.format == "json":
        document = findings_document(remaining)
        document["fixed"] = [{"file": o.file, **f.to_json()} for o in outcomes for f in o.fixed]
        document["remaining"] = document.pop("findings")
        document["written"] = write
        if args.diff:
            document["diff"] = diff
        document["summary"].update(
            fixed=len(document["fixed"]), suppressed=hidden, unsafe_available=more
        )
        write_json(document)
    else:
        out = sys.stdout
        if args.diff:
            out.write(diff)
            out = sys.stderr  # the diff alone on stdout, so it can be piped to `patch`
        pending = [] if write else [f.rule for o in outcomes for f in o.fixed]
        waiting = (
            f"{more} more fix(es) choose behaviour: see them with --diff --unsafe-fixes\n"
            if more
            else ""
        )
        out.write(
            _fixed_text(outcomes, write)
            + "remaining:\n"
            + findings_text(remaining)
            + waiting
            + _ending(args, configs, options, remaining, select, ignore, pending, fixes)
        )
    code = exit_code(remaining, strict=args.fail_on == "warning")
    if args.diff and any(o.changed for o in outcomes):
        code = 1
    return code


def _unsafe_available(outcomes, options, select, ignore) -> set:
    """(rule, key path, file) of each fix --unsafe-fixes would add (a dry pass)."""
    import dataclasses

    from evalkit.preflight.fixes.engine import fix_text

    unsafe = dataclasses.replace(options, unsafe=True)
    return {
        (f.rule, f.path, o.file)
        for o in outcomes
        for f in fix_text(o.text, o.file, unsafe, select, ignore).fixed
        if f.note  # an unsafe fix says its choice
    }


def _fixed_text(outcomes, written: bool) -> str:
    verb = "fixed" if written else "would fix"
    lines = []
    for o in outcomes:
        if not o.fixed:
            continue
        lines.append(f"{o.file}: {verb} {len(o.fixed)}")
        for f in o.fixed:
            lines.append(f"  {f.line or '-'}: {f.rule} [{f.path}]")
            lines += [f"      - {line.strip()}" for line in f.before.splitlines()]
            lines += [f"      + {line.strip()}" for line in f.after.splitlines()]
            if f.note:  # an unsafe fix: what it chose and why
                lines.append(f"      unsafe fix: {f.note}")
    if not lines:
        lines.append("nothing to fix")
    return "\n".join(lines) + "\n"
