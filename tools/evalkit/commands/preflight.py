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
(temp file + rename) and reports what it fixed and what remains; a second --fix changes
nothing. --diff prints the fixes as a unified diff and writes nothing (exit 1 when there
is a diff or an error would remain).
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
                print(f"evalkit preflight: running the launcher dry-run on {path}", file=sys.stderr)
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
        sys.stdout.write(findings_text(findings) + _suppressed_line(result.counts()))
    return exit_code(findings, strict=args.fail_on == "warning")


def _fix(args, configs, options, select, ignore) -> int:
    """--fix / --diff: fix each config (written only with --fix and no --diff)."""
    from evalkit.findings import exit_code, findings_document
    from evalkit.preflight import suppress
    from evalkit.preflight.fixes.engine import fix_text
    from evalkit.preflight.fixes.files import read_config, write_in_place
    from evalkit.render.report import findings_text, write_json

    write = args.fix and not args.diff
    outcomes, texts = [], {}
    for path in dict.fromkeys(configs):
        texts[path] = read_config(path)
    for path, (text, _) in texts.items():  # every file fixed (or refused) before any write
        outcomes.append(fix_text(text, path, options, select, ignore))
    for outcome in outcomes:
        if write and outcome.changed:
            write_in_place(outcome.file, outcome.text, texts[outcome.file][1])
    remaining, hidden = [], 0
    for o in outcomes:
        directives = {o.file: suppress.parse_directives(o.text)}
        shown = suppress.apply(o.remaining, directives, select, ignore)
        remaining += shown.shown
        hidden += len(shown.suppressed)
    # as ruff does: say how many fixes --unsafe-fixes would add (a dry pass, nothing written)
    more = 0 if options.unsafe else _unsafe_available(outcomes, options, select, ignore)
    if args.format == "json":
        document = findings_document(remaining)
        document["fixed"] = [{"file": o.file, **f.to_json()} for o in outcomes for f in o.fixed]
        document["remaining"] = document.pop("findings")
        document["written"] = write
        if args.diff:
            document["diff"] = "".join(o.diff() for o in outcomes)
        document["summary"].update(
            fixed=len(document["fixed"]), suppressed=hidden, unsafe_available=more
        )
        write_json(document)
    else:
        out = sys.stdout
        if args.diff:
            out.write("".join(o.diff() for o in outcomes))
            out = sys.stderr  # the diff alone on stdout, so it can be piped to `patch`
        out.write(_fixed_text(outcomes, write) + "remaining:\n" + findings_text(remaining))
        if more:
            out.write(
                f"{more} more fix(es) choose behaviour: see them with --diff --unsafe-fixes\n"
            )
    code = exit_code(remaining, strict=args.fail_on == "warning")
    if args.diff and any(o.changed for o in outcomes):
        code = 1
    return code


def _unsafe_available(outcomes, options, select, ignore) -> int:
    import dataclasses

    from evalkit.preflight.fixes.engine import fix_text

    unsafe = dataclasses.replace(options, unsafe=True)
    return sum(
        1
        for o in outcomes
        for f in fix_text(o.text, o.file, unsafe, select, ignore).fixed
        if f.note  # an unsafe fix says its choice
    )


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
